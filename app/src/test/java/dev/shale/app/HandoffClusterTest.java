package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handoff wired to the membership, on real node processes (docs/design.md, "Handoff"): a join
 * under a steady writer streams the new node its keys before it is normal, and a removal streams a
 * leaving node's copies to the members that take them over before it is removed.
 */
class HandoffClusterTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final int PRELOADED = 600;

  @TempDir Path dir;

  @Test
  void aJoinThenARemovalMoveTheDataUnderASteadyWriter() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, List.of()).startAll()) {
      List<String> urls = new ArrayList<>(cluster.urls());
      MembershipClusterTest.awaitTopology(urls, urls, "normal");
      Set<String> acknowledged = ConcurrentHashMap.newKeySet();
      Set<String> preloaded = new java.util.HashSet<>();
      for (int i = 0; i < PRELOADED; i++) {
        String id = String.format("hw-%06d", i);
        if (new EntityClient(urls.get(i % 3)).put(id, "v".getBytes(StandardCharsets.UTF_8)).status() == 201) {
          acknowledged.add(id);
          preloaded.add(id);
        }
      }
      assertThat(preloaded).hasSize(PRELOADED);

      AtomicBoolean stop = new AtomicBoolean();
      Thread writer = Thread.ofPlatform().name("steady-writer").start(() -> {
        for (int i = PRELOADED; !stop.get(); i++) {
          String id = String.format("hw-%06d", i);
          try {
            if (new EntityClient(urls.get(i % 3)).put(id, "v".getBytes(StandardCharsets.UTF_8)).status() == 201) {
              acknowledged.add(id);
            }
          } catch (IOException e) {
            // not acknowledged: not counted
          }
        }
      });

      NodeProcess fourth = MembershipClusterTest.launchJoining(cluster, TestCluster.nodePort(), FreePort.find(), urls.get(1));
      try {
        fourth.awaitReady(TestCluster.READY);
        List<String> four = new ArrayList<>(urls);
        four.add(fourth.baseUrl());
        MembershipClusterTest.awaitTopology(four, four, "normal");
        int atNormal = acknowledged.size();
        Await.until("writes after the join is normal, at the new placement", Duration.ofSeconds(30),
            () -> acknowledged.size() >= atNormal + 100);
        stop.set(true);
        writer.join();
        assertThat(fourth.log()).contains("handoff: ");

        // Every acknowledged write reads back, through every node.
        for (String url : four) {
          EntityClient client = new EntityClient(url);
          for (String id : acknowledged) {
            assertThat(client.getOrFail(id).status()).as("GET %s via %s", id, url).isEqualTo(200);
          }
        }

        // The new node holds, locally, the keys it replicates now: about 3/4 of them.
        Placement placement = new Placement(Topology.fromUrls(four, "127.0.0.1", cluster.port(0)));
        NodeAddress newNode = NodeAddress.parse(fourth.baseUrl());
        String local = localScan(fourth.baseUrl());
        int replicated = 0;
        List<String> missing = new ArrayList<>();
        for (String id : acknowledged) {
          if (!placement.preferenceList(id.getBytes(StandardCharsets.UTF_8), 3).contains(newNode)) continue;
          replicated++;
          if (!local.contains(id + "\n")) missing.add(id);
        }
        assertThat(replicated).isBetween(acknowledged.size() / 2, acknowledged.size() * 9 / 10);
        // Also those written while the join was applied, node by node: the map fence refuses a
        // write addressed with the map before the join once a replica applied it, and a source
        // streams only what it stored after every write it admitted before.
        assertThat(missing).as("keys the new node lacks (preloaded: %s)", missing.stream().filter(preloaded::contains).count()).isEmpty();

        // Remove one of the first three: its copies go to the others, which then hold every key.
        MembershipClusterTest.Removal removal = MembershipClusterTest.remove(cluster, urls.get(1), urls.get(0), false);
        assertThat(removal.status()).as(removal.output()).isZero();
        List<String> left = four.subList(1, 4);
        MembershipClusterTest.awaitTopology(left, left, "normal");
        for (String url : left) {
          String held = localScan(url);
          List<String> lacking = acknowledged.stream().filter(id -> !held.contains(id + "\n")).sorted().toList();
          assertThat(lacking).as("keys %s lacks after the removal", url).isEmpty();
        }
      } finally {
        stop.set(true);
        writer.join();
        fourth.close();
      }
    }
  }

  /** The node's own entries of the test's keys: its local scan's body. */
  private static String localScan(String baseUrl) throws IOException, InterruptedException {
    HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v0/entities?start=hw-&end=hw.")).timeout(
        Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(200);
    return answer.body();
  }
}
