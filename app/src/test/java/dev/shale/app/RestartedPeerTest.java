package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.NodeProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer that is back is used at once (issue 14; the course's TwoNodeTest missedDelete,
 * missedOverwrite, missedRecreate, tolerateFailure): two node processes, one killed with
 * SIGKILL; the survivor takes writes at ack=1&from=2 (each a hint) until the killed node serves
 * again, and the first ack=2&from=2 requests through the survivor right after succeed. The old
 * client answered them "504 ... is down (it refused a connection less than 1000 ms ago)": the
 * writes sent while the node was starting kept its down mark fresh.
 */
class RestartedPeerTest {
  @Test
  void aRestartedPeerIsUsedAsSoonAsItServes(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 2, List.of()).startAll()) {
      EntityClient survivor = cluster.client(0);
      EntityClient one = survivor.consistency(1, 2);
      EntityClient both = survivor.consistency(2, 2);
      assertThat(both.put("before", bytes("both")).status()).isEqualTo(201);

      cluster.node(1).kill();
      NodeProcess restarted = cluster.launchAgain(1);
      // Writes while the node starts: each one's replica call to it is refused (a hint).
      int written = 0;
      long deadline = System.nanoTime() + TestCluster.READY.toNanos();
      while (!restarted.isReady()) {
        if (System.nanoTime() > deadline) throw new AssertionError("node 1 did not serve within " + TestCluster.READY + ":\n" + restarted.log());
        assertThat(one.put("while-down-" + written, bytes("v" + written)).status()).isEqualTo(201);
        written++;
        if (!restarted.isAlive()) throw new AssertionError("node 1 exited:\n" + restarted.log());
      }

      // Served now: requests needing both replicas succeed at once, with no retry.
      for (int i = 0; i < 5; i++) {
        EntityClient.Reply put = both.put("after-" + i, bytes("a" + i));
        assertThat(put.status()).as("PUT after-%d: %s", i, put.text()).isEqualTo(201);
        EntityClient.Reply get = both.get("after-" + i);
        assertThat(get.status()).as("GET after-%d: %s", i, get.text()).isEqualTo(200);
      }
      assertThat(both.delete("before").status()).isEqualTo(202);
      assertThat(both.get("before").status()).isEqualTo(404);
      assertThat(written).as("writes while node 1 was down").isPositive();
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
