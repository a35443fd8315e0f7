package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.membership.RaftAddress;
import dev.shale.testkit.NodeProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node whose Raft port is taken says which port, and what to change. */
class RaftPortTakenTest {

  @Test
  void aTakenRaftPortIsNamedWithTheOptionsThatMoveIt(@TempDir Path tmp) throws IOException {
    int port = TestCluster.nodePort();
    int raftPort = RaftAddress.defaultPort(port);
    try (ServerSocket taken = new ServerSocket(raftPort, 1, InetAddress.getLoopbackAddress());
        NodeProcess node = NodeProcess.start(port, tmp.resolve("data"), List.of("-Xmx128m"),
            List.of("--cluster", "http://127.0.0.1:" + port))) {
      assertThat(node.awaitExit(Duration.ofSeconds(60))).isEqualTo(Main.FAILED);
      assertThat(node.log()).contains("shale: cannot start the Raft server on 127.0.0.1:" + raftPort + ": Raft port " + raftPort
          + " is in use", "--raft-port", "another --port").doesNotContain("Exception");
    }
  }
}
