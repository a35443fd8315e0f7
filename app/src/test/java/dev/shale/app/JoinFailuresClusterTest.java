package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.testkit.AtOnce;
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
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A join survives its processes dying mid-stream (issue 15): the joining node killed -9 and
 * restarted completes its join, resuming its pulls; a source killed -9 mid-stream leaves the join
 * to go on from the other replicas. Real node processes; the new node pulls at 2 MiB/s, so
 * that its pulls are still streaming when the kill comes.
 */
class JoinFailuresClusterTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final int KEYS = 1500;
  // About 18 MB for the new node, 6 MB from each of the three: more than a source's socket buffer
  // holds (4 MiB at most here), so that a source killed as the pulls begin still had data to send.
  private static final int VALUE_BYTES = 16 << 10;
  private static final String STREAM_RATE = "2m";
  private static final Duration JOIN = Duration.ofSeconds(120);

  @TempDir Path dir;

  @Test
  void theJoiningNodeKilledMidStreamAndRestartedCompletesItsJoin() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, List.of()).startAll()) {
      List<String> urls = new ArrayList<>(cluster.urls());
      MembershipClusterTest.awaitTopology(urls, urls, "normal");
      List<String> written = preload(urls);

      int port = TestCluster.nodePort();
      int raftPort = FreePort.find();
      Path data = cluster.dir().resolve("joiner");
      List<String> four = new ArrayList<>(urls);
      four.add("http://127.0.0.1:" + port);
      NodeProcess joining = NodeProcess.start(port, data, TestCluster.NODE_JVM, List.of("--join", urls.get(1), "--raft-port",
          String.valueOf(raftPort), "--cluster-secret-file", cluster.secretFile().toString(), "--stream-rate", STREAM_RATE));
      try {
        awaitPulling(joining);
        joining.kill();
      } finally {
        joining.close();
      }
      // Started again over its data: it is a member (its stored map), and takes its pulls up.
      try (NodeProcess restarted = NodeProcess.start(port, data, TestCluster.NODE_JVM,
          List.of("--cluster-secret-file", cluster.secretFile().toString(), "--stream-rate", STREAM_RATE))) {
        restarted.awaitReady(TestCluster.READY);
        awaitNormal(four);
        assertHoldsWhatItReplicates(four, restarted.baseUrl(), written);
        everyKeyReadsBack(four, written);
      }
    }
  }

  @Test
  void aSourceKilledMidStreamLeavesTheJoinToGoOnFromTheOtherReplicas() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, List.of()).startAll()) {
      List<String> urls = new ArrayList<>(cluster.urls());
      MembershipClusterTest.awaitTopology(urls, urls, "normal");
      List<String> written = preload(urls);

      NodeProcess joining = NodeProcess.start(TestCluster.nodePort(), cluster.dir().resolve("joiner"), TestCluster.NODE_JVM,
          List.of("--join", urls.get(1), "--raft-port", String.valueOf(FreePort.find()), "--cluster-secret-file",
              cluster.secretFile().toString(), "--stream-rate", STREAM_RATE));
      try {
        awaitPulling(joining);
        // The pulls go one at a time, in the order of the nodes' ids: the first is from the first node by id.
        int source = firstById(cluster);
        cluster.node(source).kill();
        List<String> four = new ArrayList<>(urls);
        four.add(joining.baseUrl());
        List<String> alive = new ArrayList<>(four);
        alive.remove(urls.get(source));
        awaitNormal(alive);
        assertThat(joining.log()).contains("cannot be reached; pulling the ranges it had from every other replica");
        assertHoldsWhatItReplicates(four, joining.baseUrl(), written);
        everyKeyReadsBack(alive, written);
      } finally {
        joining.close();
      }
    }
  }

  /**
   * Writes the keys (every tenth then deleted) through the three nodes, key i through node i % 3,
   * the three nodes' shares at once; their ids.
   */
  private static List<String> preload(List<String> urls) {
    Random random = new Random(KEYS);
    List<String> ids = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      ids.add(String.format("jf-%05d", i));
      byte[] value = new byte[VALUE_BYTES];
      random.nextBytes(value);
      values.add(value);
    }
    AtOnce.each(List.of(0, 1, 2), node -> {
      EntityClient client = new EntityClient(urls.get(node));
      for (int i = node; i < KEYS; i += urls.size()) {
        String id = ids.get(i);
        assertThat(client.put(id, values.get(i)).status()).as("PUT %s", id).isEqualTo(201);
        if (i % 10 == 0) assertThat(client.delete(id).status()).as("DELETE %s", id).isEqualTo(202);
      }
    });
    return ids;
  }

  /** Waits until the joining node has pulled some bytes and is not done. */
  private static void awaitPulling(NodeProcess joining) {
    joining.awaitReady(TestCluster.READY);
    // "bytes" is first in the status's "handoff" object.
    Await.until("the new node pulling", JOIN, () -> TestCluster.statusNumber(joining.baseUrl(), "bytes") > 0);
  }

  /** Waits until the last of {@code members} (the new node) sees four members, all normal. */
  private static void awaitNormal(List<String> members) {
    Await.until("the join complete, as " + members.getLast() + " sees the map", JOIN, () -> {
      MembershipClusterTest.Topology topology = MembershipClusterTest.topology(members.getLast());
      return topology != null && topology.members().size() == 4 && topology.states().stream().allMatch("normal"::equals);
    });
  }

  private static int firstById(TestCluster cluster) {
    List<String> ids = cluster.nodeIds();
    return ids.indexOf(ids.stream().sorted().findFirst().orElseThrow());
  }

  /** The node's local scan holds every key it replicates after the join, deleted ones as absent. */
  private static void assertHoldsWhatItReplicates(List<String> four, String node, List<String> written)
      throws IOException, InterruptedException {
    Placement placement = new Placement(Topology.fromUrls(four, "127.0.0.1", URI.create(node).getPort()));
    NodeAddress self = NodeAddress.parse(node);
    String local = HTTP.send(HttpRequest.newBuilder(URI.create(node + "/v0/entities?start=jf-&end=jf.")).timeout(Duration.ofSeconds(30))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
    List<String> lacking = new ArrayList<>();
    for (int i = 0; i < written.size(); i++) {
      String id = written.get(i);
      if (i % 10 == 0 || !placement.preferenceList(id.getBytes(StandardCharsets.UTF_8), 3).contains(self)) continue;
      if (!local.contains(id + "\n")) lacking.add(id);
    }
    assertThat(lacking).as("keys %s replicates and lacks", node).isEmpty();
  }

  /** Reads every key through each node, the nodes at once. */
  private static void everyKeyReadsBack(List<String> urls, List<String> written) {
    AtOnce.each(urls, url -> {
      EntityClient client = new EntityClient(url);
      for (int i = 0; i < written.size(); i++) {
        int expected = i % 10 == 0 ? 404 : 200;
        assertThat(client.getOrFail(written.get(i)).status()).as("GET %s via %s", written.get(i), url).isEqualTo(expected);
      }
    });
  }
}
