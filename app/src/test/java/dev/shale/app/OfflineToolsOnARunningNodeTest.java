package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The offline tools refuse the data directory of a running node (another process holding its
 * LOCK), in one line, and read it once the node has stopped.
 */
// The tool commands silence the engine's logger while they run and restore its level after:
// two of them at once would restore each other's silence.
@ResourceLock("dev.shale.storage logger level")
class OfflineToolsOnARunningNodeTest {
  @Test
  void aRunningNodesDirectoryIsRefusedAndReadOnceItStops(@TempDir Path tmp) {
    Path data = tmp.resolve("data");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    try (NodeProcess node = NodeProcess.start(FreePort.find(), data, List.of("-Xmx128m"), List.of())
        .awaitReady(Duration.ofSeconds(60))) {
      int status = Main.run(new String[] {"tool", "verify", data.toString()}, new PrintWriter(out, true),
          new PrintWriter(err, true));

      assertThat(status).isEqualTo(Main.FAILED);
      assertThat(err.toString()).isEqualTo("shale: " + data + " is in use: another process (a node?) holds its LOCK file."
          + " The tools read a stopped node's store only: stop the node first (or take a snapshot and read that)"
          + System.lineSeparator());
      assertThat(node.terminate(Duration.ofSeconds(20))).as("the node's exit status").isZero();
    }

    int status = Main.run(new String[] {"tool", "verify", data.toString()}, new PrintWriter(out, true),
        new PrintWriter(err, true));
    assertThat(status).as(out.toString()).isZero();
  }
}
