package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three node processes on loopback: any node serves any key, and each key lives on one node. */
class ClusterTest {
  private static final int KEYS = 300;

  @Test
  void everyNodeServesEveryKeyAndEachKeyIsStoredOnce(@TempDir Path tmp) throws Exception {
    Random random = new Random(TestSeed.forTest("ClusterTest.everyNode"));
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of()).startAll()) {
      Map<String, byte[]> expected = new HashMap<>(); // null: deleted
      for (int i = 0; i < KEYS; i++) {
        String id = "key-" + i;
        byte[] value = new byte[random.nextInt(3000)];
        random.nextBytes(value);
        assertThat(cluster.client(i % 3).put(id, value).status()).as("PUT %s via node %d", id, i % 3).isEqualTo(201);
        expected.put(id, value);
      }
      assertEveryNodeServes(cluster, expected);

      for (int i = 0; i < KEYS; i += 3) {
        String id = "key-" + i;
        assertThat(cluster.client((i / 3) % 3).delete(id).status()).as("DELETE %s", id).isEqualTo(202);
        expected.put(id, null);
      }
      assertEveryNodeServes(cluster, expected);

      cluster.stopAll();
      // Each node alone over its own data: exactly the keys it owns, and only those.
      cluster.startEachAlone();
      for (int n = 0; n < 3; n++) {
        EntityClient alone = cluster.client(n);
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
          EntityClient.Reply reply = alone.getOrFail(e.getKey());
          boolean holds = cluster.ownerOf(e.getKey()) == n && e.getValue() != null;
          assertThat(reply.status()).as("node %d alone, GET %s", n, e.getKey()).isEqualTo(holds ? 200 : 404);
          if (holds) assertThat(reply.body()).isEqualTo(e.getValue());
        }
      }
      cluster.stopAll();
    }
  }

  private static void assertEveryNodeServes(TestCluster cluster, Map<String, byte[]> expected) {
    for (int n = 0; n < cluster.size(); n++) {
      EntityClient client = cluster.client(n);
      for (Map.Entry<String, byte[]> e : expected.entrySet()) {
        EntityClient.Reply reply = client.getOrFail(e.getKey());
        if (e.getValue() == null) {
          assertThat(reply.status()).as("GET deleted %s via node %d", e.getKey(), n).isEqualTo(404);
        } else {
          assertThat(reply.status()).as("GET %s via node %d", e.getKey(), n).isEqualTo(200);
          assertThat(reply.body()).as("value of %s via node %d", e.getKey(), n).isEqualTo(e.getValue());
        }
      }
    }
  }

  @Test
  void aNodeDownCostsOnlyItsKeysAndTheyReturnWithIt(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of("--forward-timeout", "1000")).startAll()) {
      EntityClient client = cluster.client(0);
      for (int i = 0; i < 60; i++) assertThat(client.put("k" + i, bytes("v" + i)).status()).isEqualTo(201);

      cluster.node(2).kill();
      // A client whose own timeout is far past the forward timeout: a hung forward shows as an
      // IOException here instead of a status.
      for (int i = 0; i < 60; i++) {
        String id = "k" + i;
        int status = client.get(id).status();
        if (cluster.ownerOf(id) == 2) {
          assertThat(status).as("GET %s, owned by the node that is down", id).isIn(503, 504);
        } else {
          assertThat(status).as("GET %s, owned by a live node", id).isEqualTo(200);
        }
      }
      assertThat(client.put(keyOwnedBy(cluster, 2), bytes("x")).status()).isIn(503, 504);
      assertThat(client.put(keyOwnedBy(cluster, 1), bytes("x")).status()).isEqualTo(201);

      cluster.restart(2);
      Await.until("the keys of node 2 to be served again", Duration.ofSeconds(30), () -> {
        try {
          return client.get(keyOwnedBy(cluster, 2)).status() != 503;
        } catch (IOException e) {
          return false;
        }
      });
      for (int i = 0; i < 60; i++) {
        EntityClient.Reply reply = client.get("k" + i);
        assertThat(reply.status()).as("GET k%d after the node returned", i).isEqualTo(200);
        assertThat(reply.text()).isEqualTo("v" + i);
      }
    }
  }

  @Test
  void forgedInternalRequestsAreRefused(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 2, List.of()).startAll()) {
      String url = cluster.urls().get(0) + "/v0/entity?id=a";
      assertThat(send(url, "trusted").statusCode()).isEqualTo(403);
      HttpResponse<String> forged = send(url, "v1 " + System.currentTimeMillis() + " AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
      assertThat(forged.statusCode()).isEqualTo(403);
      assertThat(forged.body()).contains("internal request refused", "does not match");
      // Without the header the same request is a client's, and served.
      assertThat(cluster.client(0).get("a").status()).isEqualTo(404);
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

  private static String keyOwnedBy(TestCluster cluster, int node) {
    for (int i = 0; ; i++) if (cluster.ownerOf("owned-" + i) == node) return "owned-" + i;
  }

  private static HttpResponse<String> send(String url, String internalHeader) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(url))
        .header("X-Shale-Internal", internalHeader)
        .timeout(Duration.ofSeconds(30))
        .GET().build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
