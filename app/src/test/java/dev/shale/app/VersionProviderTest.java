package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The version names the commit the launcher names (-Dshale.commit), in the checkout and in a release alike. */
class VersionProviderTest {
  private static final String COMMIT = "c84084e0123456789abcdef0123456789abcdef0";

  @Test
  void aCommitReplacesSnapshotWithItsFirstSevenHexDigits() {
    assertThat(VersionProvider.version("0.1.0-SNAPSHOT", COMMIT)).isEqualTo("0.1.0-c84084e");
    assertThat(VersionProvider.lines("0.1.0-SNAPSHOT", COMMIT)).containsExactly("shale 0.1.0-c84084e", "commit " + COMMIT);
  }

  @Test
  void aTreeWithChangesIsDirty() {
    assertThat(VersionProvider.version("0.1.0-SNAPSHOT", COMMIT + "-dirty")).isEqualTo("0.1.0-c84084e-dirty");
    assertThat(VersionProvider.lines("0.1.0-SNAPSHOT", COMMIT + "-dirty"))
        .containsExactly("shale 0.1.0-c84084e-dirty", "commit " + COMMIT + ", with uncommitted changes");
  }

  @Test
  void aReleaseVersionKeepsItsNumberAndGainsTheCommit() {
    assertThat(VersionProvider.version("0.2.0", COMMIT)).isEqualTo("0.2.0-c84084e");
  }

  @Test
  void withoutACommitTheVersionIsMavensAndTheCommitUnknown() {
    assertThat(VersionProvider.lines("0.1.0-SNAPSHOT", null))
        .containsExactly("shale 0.1.0-SNAPSHOT", "commit unknown (not started by a launcher)");
  }

  @Test
  void aPropertyThatNamesNoCommitIsIgnoredRatherThanPrinted() {
    for (String bad : List.of("", "c84084e", COMMIT + "-modified", COMMIT.toUpperCase(Locale.ROOT), COMMIT + "\n\u001b[0m")) {
      assertThat(VersionProvider.version("0.1.0-SNAPSHOT", bad)).as("-Dshale.commit=%s", bad).isEqualTo("0.1.0-SNAPSHOT");
    }
  }

  @Test
  void shaleClusterPassesTheCommitOnToItsNodes() {
    List<String> jvm = List.of("--enable-native-access=ALL-UNNAMED", "-XX:+UseZGC", "-XX:SoftMaxHeapSize=1g",
        "-Dshale.commit=" + COMMIT, "-Dother=1", "-agentlib:jdwp=transport=dt_socket");
    assertThat(ClusterCommand.nodeJvmOptions(jvm)).containsExactly("-XX:+UseZGC", "-Dshale.commit=" + COMMIT);
  }
}
