package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.AtOnce;
import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three node processes on loopback: any node serves any key, each key lives on the first
 * {@code from} nodes of its preference list and no others, and a node down costs nothing while
 * {@code ack} replicas remain.
 */
class ClusterTest {
  private static final int KEYS = 300;

  @Test
  void everyNodeServesEveryKeyAndEachKeyIsStoredOnItsFromNodesOnly(@TempDir Path tmp) throws Exception {
    Random random = new Random(TestSeed.forTest("ClusterTest.everyNode"));
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of()).startAll()) {
      Map<String, byte[]> expected = new HashMap<>(); // null: deleted
      Map<String, Integer> fromOf = new HashMap<>();
      for (int i = 0; i < KEYS; i++) {
        String id = "key-" + i;
        int from = 1 + i % 3;
        byte[] value = new byte[random.nextInt(3000)];
        random.nextBytes(value);
        // ack = from: every replica has stored it once the PUT is answered.
        EntityClient client = cluster.client(i % 3).consistency(from, from);
        assertThat(client.put(id, value).status()).as("PUT %s via node %d", id, i % 3).isEqualTo(201);
        expected.put(id, value);
        fromOf.put(id, from);
      }
      assertEveryNodeServes(cluster, expected, fromOf);

      for (int i = 0; i < KEYS; i += 4) {
        String id = "key-" + i;
        EntityClient client = cluster.client((i / 4) % 3).consistency(fromOf.get(id), fromOf.get(id));
        assertThat(client.delete(id).status()).as("DELETE %s", id).isEqualTo(202);
        expected.put(id, null);
      }
      assertEveryNodeServes(cluster, expected, fromOf);

      cluster.stopAll();
      // Each node alone over its own data: exactly the keys it is one of the first 'from' of.
      cluster.startEachAlone();
      Map<String, Integer> copies = new ConcurrentHashMap<>();
      AtOnce.each(List.of(0, 1, 2), n -> {
        EntityClient alone = cluster.client(n);
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
          EntityClient.Reply reply = alone.getOrFail(e.getKey());
          boolean replica = cluster.replicasOf(e.getKey(), fromOf.get(e.getKey())).contains(n);
          boolean holds = replica && e.getValue() != null;
          assertThat(reply.status()).as("node %d alone, GET %s", n, e.getKey()).isEqualTo(holds ? 200 : 404);
          if (holds) {
            assertThat(reply.body()).isEqualTo(e.getValue());
            copies.merge(e.getKey(), 1, Integer::sum);
          }
        }
      });
      for (Map.Entry<String, byte[]> e : expected.entrySet()) {
        if (e.getValue() != null) assertThat(copies.get(e.getKey())).as("copies of %s", e.getKey()).isEqualTo(fromOf.get(e.getKey()));
      }
      cluster.stopAll();
    }
  }

  /**
   * Reads with the write's from (and ack = 1: every replica was written with ack = from) through
   * each node, the nodes at once.
   */
  private static void assertEveryNodeServes(TestCluster cluster, Map<String, byte[]> expected, Map<String, Integer> fromOf) {
    AtOnce.each(List.of(0, 1, 2), n -> {
      for (Map.Entry<String, byte[]> e : expected.entrySet()) {
        EntityClient.Reply reply = cluster.client(n).consistency(1, fromOf.get(e.getKey())).getOrFail(e.getKey());
        if (e.getValue() == null) {
          assertThat(reply.status()).as("GET deleted %s via node %d", e.getKey(), n).isEqualTo(404);
        } else {
          assertThat(reply.status()).as("GET %s via node %d", e.getKey(), n).isEqualTo(200);
          assertThat(reply.body()).as("value of %s via node %d", e.getKey(), n).isEqualTo(e.getValue());
        }
      }
    });
  }

  @Test
  void aNodeDownCostsNothingAtQuorumAndNamesItselfPastIt(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of("--replica-timeout", "1000")).startAll()) {
      EntityClient client = cluster.client(0);
      for (int i = 0; i < 30; i++) assertThat(client.put("k" + i, bytes("v" + i)).status()).isEqualTo(201);

      cluster.node(2).kill();
      for (int i = 0; i < 30; i++) {
        EntityClient.Reply reply = client.get("k" + i);
        assertThat(reply.status()).as("GET k%d at 2/3 with a node down", i).isEqualTo(200);
        assertThat(reply.text()).isEqualTo("v" + i);
      }
      assertThat(client.put("k0", bytes("x")).status()).isEqualTo(201);
      EntityClient.Reply all = client.consistency(3, 3).get("k1");
      assertThat(all.status()).isEqualTo(504);
      // Decided by the first failure: 3/3 cannot be had once one replica failed.
      assertThat(all.text()).contains("3 of 3 replicas needed", cluster.urls().get(2));

      cluster.restart(2);
      // Node 0 takes a peer that refused a connection as down for a second: wait that out.
      Await.until("node 0 to reach node 2 again", Duration.ofSeconds(30), () -> {
        try {
          return client.consistency(3, 3).get("k1").status() == 200;
        } catch (IOException e) {
          return false;
        }
      });
      for (int i = 1; i < 30; i++) {
        EntityClient.Reply reply = client.consistency(3, 3).get("k" + i);
        assertThat(reply.status()).as("GET k%d at 3/3 after the node returned", i).isEqualTo(200);
        assertThat(reply.text()).isEqualTo("v" + i);
      }
    }
  }

  @Test
  void startupErrorsNameTheProblem(@TempDir Path tmp) {
    try (TestCluster cluster = new TestCluster(tmp, 2, List.of())) {
      String list = String.join(",", cluster.urls());
      try (var node = dev.shale.testkit.NodeProcess.start(dev.shale.testkit.FreePort.find(), tmp.resolve("a"), List.of(),
          List.of("--cluster", list, "--trusted-network"))) {
        assertThat(node.awaitExit(TestCluster.READY)).isEqualTo(Main.USAGE);
        assertThat(node.log()).contains("--cluster must name this node");
      }
      int port = Integer.parseInt(cluster.urls().get(0).replaceAll(".*:", ""));
      try (var node = dev.shale.testkit.NodeProcess.start(port, tmp.resolve("b"), List.of(), List.of("--cluster", list))) {
        assertThat(node.awaitExit(TestCluster.READY)).isEqualTo(Main.USAGE);
        assertThat(node.log()).contains("needs a secret", "--trusted-network");
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
