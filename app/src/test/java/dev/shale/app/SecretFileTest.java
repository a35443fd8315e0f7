package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secret file that cannot be read is named by the option that gave it: a missing --token-file
 * or --admin-token-file was reported as "cannot read the cluster secret file", sending the user
 * after a file they never gave.
 */
class SecretFileTest {
  @TempDir Path dir;

  @Test
  void aMissingTokenFileIsNamedAsTheTokenFile() {
    Path missing = dir.resolve("app.token");
    assertThatThrownBy(() -> BearerToken.resolve(missing, Map.of(), IllegalArgumentException::new))
        .hasMessageStartingWith("cannot read --token-file " + missing + ": ")
        .hasMessageNotContaining("cluster secret");
  }

  @Test
  void eachOptionNamesItself() {
    Path missing = dir.resolve("secret");
    for (String option : new String[] {"--admin-token-file", "--admin-secret-file", "--cluster-secret-file"}) {
      assertThatThrownBy(() -> SecretFile.read(missing, option, IllegalArgumentException::new))
          .hasMessageStartingWith("cannot read " + option + " " + missing + ": ");
    }
    assertThatThrownBy(() -> SecretFile.fromOptions(null, missing, IllegalArgumentException::new))
        .hasMessageStartingWith("cannot read --cluster-secret-file " + missing + ": ");
  }
}
