package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.PeerWire;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Anti-entropy repair on a real three-node cluster: a replica whose data directory was deleted,
 * restarted empty, holds every key again after a repair, with the newest versions, and every
 * deleted key stays deleted (its tombstone copied, never the older value).
 */
class RepairClusterTest {
  private static final int EMPTIED = 2;

  @Test
  void anOperatorsRepairRefillsAnEmptiedReplicaAndNothingDeletedComesBack(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of("--repair-interval", "0")).startAll()) {
      Map<String, byte @Nullable []> expected = writeAndDelete(cluster, TestSeed.forTest("RepairClusterTest.operator"));
      emptyAndRestart(cluster, EMPTIED);
      // A deletion one replica alone holds, newer than the value the other two hold: it wins.
      String conflict = "conflict";
      long version = (System.currentTimeMillis() - 1_000) << 16; // a hybrid clock version a second old
      writeOnOneReplica(cluster, 0, conflict, bytes("old"), version);
      writeOnOneReplica(cluster, EMPTIED, conflict, bytes("old"), version);
      writeOnOneReplica(cluster, 1, conflict, null, version + 1);
      expected.put(conflict, null);

      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int status = Main.run(new String[] {"nodes", "repair", "--via", cluster.urls().get(0),
          "--cluster-secret-file", cluster.secretFile().toString()}, new PrintWriter(out, true), new PrintWriter(err, true));

      assertThat(status).as(out + "\n" + err).isZero();
      assertThat(out.toString()).startsWith("repaired 3 ranges (replica pairs): ").contains(" records, ");
      for (int i = 0; i < 3; i++) assertThat(localMismatches(cluster, i, expected)).as("node %d's own store", i).isEmpty();
      assertThat(cluster.counter(0, "repairRuns")).isEqualTo(1);
      assertThat(cluster.counter(0, "repairRecordsExchanged")).isGreaterThanOrEqualTo(expected.size());
      // The same counts for Prometheus (docs/operations.md, "Cluster").
      String metrics = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(cluster.urls().get(0) + "/metrics")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
      assertThat(metrics).containsPattern("(?m)^shale_repair_runs_total 1(\\.0)?$")
          .containsPattern("(?m)^shale_repair_records_exchanged_total " + cluster.counter(0, "repairRecordsExchanged") + "(\\.0)?$");
    }
  }

  @Test
  void theBackgroundRepairRefillsAnEmptiedReplica(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of("--repair-interval", "300")).startAll()) {
      Map<String, byte @Nullable []> expected = writeAndDelete(cluster, TestSeed.forTest("RepairClusterTest.background"));
      emptyAndRestart(cluster, EMPTIED);
      Await.until("the emptied node holds every key again", Duration.ofSeconds(60),
          () -> localMismatches(cluster, EMPTIED, expected).isEmpty());
      // Each node's own schedule; whichever ran first refilled it.
      assertThat(cluster.counter(0, "repairRuns") + cluster.counter(1, "repairRuns") + cluster.counter(EMPTIED, "repairRuns"))
          .isPositive();
    }
  }

  /**
   * A repair follows the cluster map: after a fourth node joined, an operator's repair compares
   * every pair of the four, the new node too, and finds nothing to copy: the handoff streamed the
   * new node the keys it is now a replica of, tombstones included, before it became normal. The
   * status has both the topology and the counters.
   */
  @Test
  void aRepairAfterAJoinComparesTheJoinedNodeToo(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of("--repair-interval", "0")).startAll()) {
      writeAndDelete(cluster, TestSeed.forTest("RepairClusterTest.join"));
      List<String> urls = new ArrayList<>(cluster.urls());
      try (NodeProcess fourth = MembershipClusterTest.launchJoining(cluster, TestCluster.nodePort(), FreePort.find(), urls.get(0))) {
        fourth.awaitReady(TestCluster.READY);
        urls.add(fourth.baseUrl());
        MembershipClusterTest.awaitTopology(urls, urls, "normal");

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(new String[] {"nodes", "repair", "--via", cluster.urls().get(0),
            "--cluster-secret-file", cluster.secretFile().toString()}, new PrintWriter(out, true), new PrintWriter(err, true));

        assertThat(status).as(out + "\n" + err).isZero();
        assertThat(out.toString()).startsWith("repaired 6 ranges (replica pairs): ");
        assertThat(cluster.counter(0, "repairRuns")).isEqualTo(1);
        assertThat(cluster.counter(0, "repairRecordsExchanged")).as("keys the handoff did not stream to the joined node").isZero();
        assertThat(MembershipClusterTest.topology(urls.get(0)).members()).hasSize(4);
      }
    }
  }

  /** Writes keys, overwrites some and deletes others; what each key should read (null: deleted). */
  private static Map<String, byte @Nullable []> writeAndDelete(TestCluster cluster, long seed) throws IOException {
    Random random = new Random(seed);
    Map<String, byte @Nullable []> expected = new TreeMap<>();
    EntityClient client = cluster.client(0);
    for (int i = 0; i < 300; i++) {
      String key = "k" + i;
      byte[] value = new byte[1 + random.nextInt(300)];
      random.nextBytes(value);
      assertThat(client.put(key, value).status()).as("PUT %s", key).isEqualTo(201);
      expected.put(key, value);
    }
    for (int i = 0; i < 300; i += 3) { // newer versions of a third
      String key = "k" + i;
      byte[] value = bytes("newer " + i);
      assertThat(client.put(key, value).status()).as("PUT %s again", key).isEqualTo(201);
      expected.put(key, value);
    }
    for (int i = 1; i < 300; i += 5) {
      String key = "k" + i;
      assertThat(client.delete(key).status()).as("DELETE %s", key).isEqualTo(202);
      expected.put(key, null);
    }
    return expected;
  }

  /** Stops node {@code i}, deletes its data directory, and starts it again with an empty store. */
  private static void emptyAndRestart(TestCluster cluster, int i) throws IOException {
    cluster.stop(i);
    Path data = cluster.dataDir(i);
    try (Stream<Path> files = Files.walk(data)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(file);
    }
    cluster.restart(i);
    assertThat(localMismatches(cluster, i, Map.of("k0", bytes("anything")))).as("the restarted node is empty").isNotEmpty();
  }

  /** Stores a record in node {@code i}'s own store only: {@code value}, or a tombstone if null. */
  private static void writeOnOneReplica(TestCluster cluster, int i, String key, byte @Nullable [] value, long version)
      throws IOException {
    try (PeerWire peer = cluster.peerOf(i)) {
      assertThat(peer.write(bytes(key), value, version)).isInstanceOf(PeerWire.Reply.Stored.class);
    }
  }

  /** The keys node {@code i}'s own store does not hold as expected (a value, or a tombstone for null). */
  private static List<String> localMismatches(TestCluster cluster, int i, Map<String, byte @Nullable []> expected) {
    List<String> wrong = new ArrayList<>();
    try (PeerWire peer = cluster.peerOf(i)) {
      for (Map.Entry<String, byte @Nullable []> e : expected.entrySet()) {
        PeerWire.Reply reply = peer.read(bytes(e.getKey()));
        boolean right = e.getValue() == null
            ? reply instanceof PeerWire.Reply.Tombstone
            : reply instanceof PeerWire.Reply.Value value && Arrays.equals(value.value(), e.getValue());
        if (!right) wrong.add(e.getKey() + ": " + reply);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return wrong;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
