package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five node processes with {@code --replication-factor 3}: each key lives on exactly the first
 * three nodes of its preference list, requests default to 2/3 of those, a cluster scan gives
 * every key once, and all of it holds with a node stopped, which gets the hints of its own keys
 * only once back. The tests share the cluster and run in order (the last two stop and restart a node).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationFactorClusterTest {
  private static final int NODES = 5;
  private static final int FACTOR = 3;
  private static final int KEYS = 300;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private TestCluster cluster;
  private final Map<String, String> expected = new TreeMap<>(); // what the cluster holds, by key

  @BeforeAll
  void startCluster(@TempDir Path tmp) throws Exception {
    cluster = new TestCluster(tmp, NODES, List.of("--replication-factor", Integer.toString(FACTOR))).startAll();
    for (int i = 0; i < KEYS; i++) {
      String id = id(i);
      assertThat(cluster.client(i % NODES).put(id, bytes("value-" + i)).status()).as(id).isEqualTo(201);
      expected.put(id, "value-" + i);
    }
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) cluster.close();
  }

  @Test
  @Order(1)
  void everyNodeReportsTheFactor() {
    for (int n = 0; n < NODES; n++) assertThat(cluster.counter(n, "replicationFactor")).as("node %d", n).isEqualTo(FACTOR);
  }

  @Test
  @Order(2)
  void eachKeyIsStoredOnExactlyTheFirstFactorNodesOfItsList() throws Exception {
    Map<String, List<Integer>> holders = new TreeMap<>();
    for (int n = 0; n < NODES; n++) {
      for (String id : keys(scan(n, "start=rf-"))) holders.computeIfAbsent(id, k -> new ArrayList<>()).add(n);
    }
    assertThat(holders.keySet()).containsExactlyElementsOf(expected.keySet());
    for (Map.Entry<String, List<Integer>> key : holders.entrySet()) {
      assertThat(key.getValue()).as(key.getKey())
          .containsExactlyInAnyOrderElementsOf(cluster.replicasOf(key.getKey(), FACTOR));
    }
    // And every node holds some: about 3/5 of the keys each.
    for (int n = 0; n < NODES; n++) {
      int node = n;
      assertThat(holders.values().stream().filter(h -> h.contains(node)).count()).as("node %d", n)
          .isBetween((long) KEYS * FACTOR / NODES / 2, (long) KEYS * FACTOR / NODES * 3 / 2);
    }
  }

  @Test
  @Order(3)
  void aClusterScanGivesEveryKeyOnceWithItsNewestValue() throws Exception {
    for (int i = 0; i < KEYS; i += 7) {
      assertThat(cluster.client(1).put(id(i), bytes("newer-" + i)).status()).isEqualTo(201);
      expected.put(id(i), "newer-" + i);
    }
    for (int i = 3; i < KEYS; i += 11) {
      assertThat(cluster.client(2).delete(id(i)).status()).isEqualTo(202);
      expected.remove(id(i));
    }

    for (int n = 0; n < NODES; n++) assertThat(scan(n, "start=rf-&scope=cluster")).as("via node %d", n).isEqualTo(expected);
  }

  @Test
  @Order(4)
  void fromMayGoUpToTheNodesButNoFurther() throws Exception {
    EntityClient everyNode = cluster.client(0).consistency(NODES, NODES);
    assertThat(everyNode.put("everywhere", bytes("x")).status()).isEqualTo(201);
    for (int n = 0; n < NODES; n++) assertThat(cluster.readAlone(n, "everywhere").status()).as("node %d", n).isEqualTo(200);

    EntityClient.Reply beyond = cluster.client(0).consistency(1, NODES + 1).get("everywhere");
    assertThat(beyond.status()).isEqualTo(400);
    assertThat(beyond.text()).contains("from (6) exceeds the cluster's 5 node(s)");
    assertThat(cluster.client(0).consistency(1, NODES + 1).delete("everywhere").status()).isEqualTo(400);
    assertThat(cluster.client(0).consistency(NODES, NODES).delete("everywhere").status()).isEqualTo(202);
  }

  @Test
  @Order(5)
  void withANodeStoppedDefaultReadsWritesAndScansSucceed() throws Exception {
    cluster.stop(4);

    for (int n = 0; n < 4; n++) {
      for (int i = 0; i < KEYS; i += 5) {
        EntityClient.Reply got = cluster.client(n).get(id(i));
        String value = expected.get(id(i));
        if (value == null) {
          assertThat(got.status()).as("%s via node %d", id(i), n).isEqualTo(404);
        } else {
          assertThat(got.status()).as("%s via node %d", id(i), n).isEqualTo(200);
          assertThat(got.text()).isEqualTo(value);
        }
      }
    }
    for (int i = 1; i < KEYS; i += 5) {
      assertThat(cluster.client(i % 4).put(id(i), bytes("down-" + i)).status()).as(id(i)).isEqualTo(201);
      expected.put(id(i), "down-" + i);
    }
    assertThat(scan(0, "start=rf-&scope=cluster")).isEqualTo(expected);
  }

  @Test
  @Order(6)
  void theStoppedNodeGetsHintsOfItsOwnKeysOnly() throws Exception {
    long hintsStored = 0;
    for (int n = 0; n < 4; n++) hintsStored += cluster.counter(n, "hintsStored");
    assertThat(hintsStored).as("writes node 4 missed").isPositive();

    cluster.restart(4);

    // Every hint delivered (so none still on its way to node 4), then node 4 holds exactly the
    // writes it missed of the keys it replicates.
    Await.until("every hint delivered", Duration.ofSeconds(60), () -> {
      for (int n = 0; n < 4; n++) if (cluster.counter(n, "hintsPending") != 0) return false;
      return true;
    });
    for (int i = 1; i < KEYS; i += 5) {
      String id = id(i);
      EntityClient.Reply held = cluster.readAlone(4, id);
      if (cluster.replicasOf(id, FACTOR).contains(4)) {
        assertThat(held.status()).as(id).isEqualTo(200);
        assertThat(held.text()).as(id).isEqualTo(expected.get(id));
      } else {
        assertThat(held.status()).as(id).isEqualTo(404);
      }
    }
  }

  /** The entries of a 200 scan through node {@code n}, by key; each key must come once. */
  private Map<String, String> scan(int n, String query) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.urls().get(n) + "/v0/entities?" + query))
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    Map<String, String> entries = new TreeMap<>();
    // Keys start with "rf-", values never contain it: the chunks, joined, split back at each key.
    for (String entry : response.body().split("(?=rf-)")) {
      if (entry.isEmpty()) continue;
      int newline = entry.indexOf('\n');
      assertThat(entries.put(entry.substring(0, newline), entry.substring(newline + 1))).as("key %s given twice", entry).isNull();
    }
    return entries;
  }

  private static List<String> keys(Map<String, String> entries) {
    return List.copyOf(entries.keySet());
  }

  private static String id(int i) {
    return String.format("rf-%03d", i);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
