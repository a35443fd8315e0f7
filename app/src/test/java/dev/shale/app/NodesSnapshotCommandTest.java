package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shale nodes snapshot NAME} on a real 3-node cluster: every member's snapshot, one summary. */
class NodesSnapshotCommandTest {
  @TempDir Path dir;

  @Test
  void everyMemberSnapshotsUnderOneNameAndAFailureIsNamedWithExit1() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, List.of()).startAll()) {
      for (int i = 0; i < 30; i++) {
        assertThat(cluster.client(i % 3).put("k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
      }
      String secret = cluster.secretFile().toString();

      Run made = shale("nodes", "snapshot", "nightly", "--via", cluster.urls().get(1), "--cluster-secret-file", secret);

      assertThat(made.status()).as(made.err()).isZero();
      for (int i = 0; i < 3; i++) {
        Path snapshot = cluster.dataDir(i).toAbsolutePath().normalize().resolve("snapshots").resolve("nightly");
        assertThat(snapshot).as("member %d's snapshot", i).isDirectory();
        assertThat(made.out()).containsPattern("(?m)^" + cluster.urls().get(i) + " +ok +" + snapshot + "$");
      }
      assertThat(made.out()).endsWith("3 of 3 members made their snapshot" + System.lineSeparator());

      // The name exists on every member now: each refuses, and the command says so and fails.
      Run again = shale("nodes", "snapshot", "nightly", "--via", cluster.urls().get(0), "--cluster-secret-file", secret);
      assertThat(again.status()).isEqualTo(Main.FAILED);
      assertThat(again.out()).contains("409", "exists already").contains("0 of 3 members made their snapshot");

      cluster.node(2).kill();
      Run partial = shale("nodes", "snapshot", "second", "--via", cluster.urls().get(0), "--cluster-secret-file", secret);
      assertThat(partial.status()).isEqualTo(Main.FAILED);
      assertThat(partial.out()).containsPattern("(?m)^" + cluster.urls().get(2) + " +failed +cannot connect to ")
          .contains("2 of 3 members made their snapshot");

      Run unsigned = shale("nodes", "snapshot", "third", "--via", cluster.urls().get(0));
      assertThat(unsigned.status()).isEqualTo(Main.FAILED);
      assertThat(unsigned.err()).contains("403");
    }
  }

  record Run(int status, String out, String err) {}

  private static Run shale(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(status, out.toString(), err.toString());
  }
}
