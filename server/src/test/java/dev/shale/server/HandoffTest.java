package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.cluster.handoff.Handoff;
import dev.shale.cluster.handoff.PlacementChange;
import dev.shale.cluster.handoff.RangeProgress;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Env;
import dev.shale.testkit.Await;
import dev.shale.testkit.FreePort;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fourth node joins three in one JVM, with real servers and engines: the pull of the ranges it
 * gains (versions and tombstones kept), writes while the change is pending, a source that dies
 * mid-stream, a receiver restarted mid-stream.
 *
 * <p>Until the membership is merged, the test drives the seam itself: the four nodes start as a
 * cluster of four for the transport (the handshake checks a static node list), are told that the
 * placement is the first three ({@code changeCommitted} of a change from four to three, before any
 * data), then of the join ({@code changeStarted}, {@code changeCommitted}).
 */
class HandoffTest {
  private static final byte[] SECRET = "handoff-test-secret".getBytes(StandardCharsets.UTF_8);
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final String QUORUM = "&ack=2&from=3";
  private static final String ALL = "&ack=3&from=3";

  @TempDir Path tmp;
  private final List<NodeAddress> addresses = new ArrayList<>();
  private final List<String> urls = new ArrayList<>();
  private final Node[] nodes = new Node[4];
  private final Map<NodeAddress, Boolean> received = new ConcurrentHashMap<>();
  private PlacementChange join;

  @AfterEach
  void stop() {
    for (Node node : nodes) if (node != null) node.close();
  }

  @Test
  void theNewNodeReceivesExactlyTheKeysItGainsKeepingNewerOnesAndTheOldOnesDropWhatTheyLost() {
    startCluster(Handoff.DEFAULT_BYTES_PER_SECOND);
    Map<String, Entry> written = writeKeys(300, 100, 7);
    Node fourth = nodes[3];
    // A key the fourth node gains, which it already holds newer (as a pending replica would),
    // and one it holds older: the pull keeps the first and replaces the second.
    List<String> gained = written.keySet().stream().filter(k -> gains(k, fourth.self())).sorted().toList();
    String newerHere = gained.get(0);
    String olderHere = gained.get(1);
    fourth.engine.write(bytes(newerHere), bytes("newer"), written.get(newerHere).version() + 1);
    fourth.engine.write(bytes(olderHere), bytes("older"), written.get(olderHere).version() - 1);

    startJoin();
    Await.until("the fourth node received its ranges", DEADLINE, () -> received.containsKey(fourth.self()));

    Map<String, Entry> local = localRecords(fourth.engine);
    assertThat(local.keySet()).as("exactly the keys it gains").containsExactlyInAnyOrderElementsOf(written.keySet().stream()
        .filter(k -> gains(k, fourth.self())).toList());
    for (String key : local.keySet()) {
      if (key.equals(newerHere)) {
        assertThat(new String(local.get(key).value(), StandardCharsets.UTF_8)).isEqualTo("newer");
      } else {
        assertThat(local.get(key)).as(key).isEqualTo(written.get(key));
      }
    }
    assertThat(local.values().stream().filter(Entry::isTombstone).count()).as("tombstones pulled").isPositive();
    assertThat(local.size()).as("about 3/4 of the keys").isBetween(300 * 3 / 4 - 45, 300 * 3 / 4 + 45);
    // One pull per node it takes the place of (each of the first three, for some keys), from that node.
    List<RangeProgress> pulls = fourth.handoff.progress();
    assertThat(pulls).extracting(RangeProgress::name).containsExactlyInAnyOrder(
        "replacing:" + nodes[0].self().id(), "replacing:" + nodes[1].self().id(), "replacing:" + nodes[2].self().id());
    assertThat(pulls).allMatch(RangeProgress::done);
    assertThat(pulledRecords(fourth)).isEqualTo(local.size());
    assertThat(TestServer.text(fourth.server.get(fourth.server.uri("/v0/status"))))
        .contains("\"handoff\": {\"ranges\": 3, \"rangesDone\": 3, \"records\": " + local.size() + ", ");

    // Committed: each of the first three drops exactly the keys the fourth took from it.
    for (Node node : nodes) node.handoff.changeCommitted(join);
    for (Node old : List.of(nodes[0], nodes[1], nodes[2])) {
      List<String> replicated = written.keySet().stream().filter(k -> join.replicasAfter(bytes(k)).contains(old.self())).toList();
      assertThat(replicated.size()).isLessThan(written.size());
      Await.until(old.self() + " keeps exactly the keys it replicates", DEADLINE,
          () -> localRecords(old.engine).keySet().equals(new java.util.TreeSet<>(replicated)));
    }
    assertThat(localRecords(fourth.engine).keySet()).as("the fourth drops nothing: it lost no range").isEqualTo(local.keySet());
  }

  @Test
  void writesWhileTheChangeIsPendingReachTheNewReplicaAndEveryKeyIsReadableAfterIt() {
    startCluster(1); // a byte a second: the pull stays pending while the writes go on
    startJoin();
    Node fourth = nodes[3];
    Map<String, Entry> written = writeKeys(200, 0, 11);
    for (String key : written.keySet()) {
      if (gains(key, fourth.self())) {
        assertThat(fourth.engine.get(bytes(key))).as("written to the pending replica: " + key).isEqualTo(written.get(key));
      }
    }
    for (Node node : nodes) node.handoff.changeCommitted(join);
    for (Map.Entry<String, Entry> entry : written.entrySet()) {
      HttpResponse<byte[]> read = fourth.server.get(fourth.entityUri(entry.getKey(), QUORUM));
      if (entry.getValue().isTombstone()) {
        assertThat(read.statusCode()).as(entry.getKey()).isEqualTo(404);
      } else {
        assertThat(read.body()).as(entry.getKey()).isEqualTo(entry.getValue().value());
      }
    }
  }

  /**
   * A write of a key that moves needs {@code ack} of its replicas before the join and {@code ack}
   * of those after: the two replicas the sets share give both, so it succeeds with the joining
   * node and the node it replaces both down (it needed 3 of the 4 targets before).
   */
  @Test
  void aWriteWhileAJoinIsPendingNeedsOnlyTheReplicasTheTwoSetsShare() {
    startCluster(1); // a byte a second: the change stays pending
    startJoin();
    NodeAddress down = nodes[1].self();
    List<String> moving = java.util.stream.IntStream.range(0, 400).mapToObj(i -> "key-" + i)
        .filter(k -> gains(k, nodes[3].self()) && replaced(k).equals(down)).limit(20).toList();
    assertThat(moving).isNotEmpty();
    for (int i : new int[] {1, 3}) {
      nodes[i].close();
      nodes[i] = null;
    }
    for (String key : moving) {
      HttpResponse<byte[]> put = nodes[0].server.put(nodes[0].entityUri(key, QUORUM), bytes("v-" + key));
      assertThat(put.statusCode()).as("%s: %s", key, new String(put.body(), StandardCharsets.UTF_8)).isEqualTo(201);
      assertThat(nodes[0].server.get(nodes[0].entityUri(key, QUORUM)).body()).isEqualTo(bytes("v-" + key));
    }
  }

  @Test
  void aSteadyWriterLosesNoAcknowledgedWriteAcrossTheJoinAndItsCommit() throws Exception {
    startCluster(64 << 10);
    writeKeys(300, 0, 1 << 10); // about 225 KiB for the fourth: a few seconds at 64 KiB/s
    Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
    AtomicBoolean stop = new AtomicBoolean();
    Thread writer = Thread.ofPlatform().name("steady-writer").start(() -> {
      for (int i = 0; !stop.get(); i++) {
        String key = "steady-" + i;
        byte[] value = bytes("v" + i);
        Node through = nodes[i % 4];
        if (through.server.put(through.entityUri(key, QUORUM), value).statusCode() == 201) acknowledged.put(key, value);
      }
    });
    try {
      Await.until("some writes before the join", DEADLINE, () -> acknowledged.size() >= 20);
      startJoin();
      Await.until("the fourth node received its ranges", DEADLINE, () -> received.containsKey(nodes[3].self()));
      int beforeCommit = acknowledged.size();
      for (Node node : nodes) node.handoff.changeCommitted(join); // one by one, while the writer goes on
      Await.until("some writes after the commit", DEADLINE, () -> acknowledged.size() >= beforeCommit + 20);
    } finally {
      stop.set(true);
      writer.join();
    }
    for (Map.Entry<String, byte[]> write : acknowledged.entrySet()) {
      for (Node node : nodes) {
        assertThat(node.server.get(node.entityUri(write.getKey(), QUORUM)).body()).as(write.getKey() + " through " + node.self())
            .isEqualTo(write.getValue());
      }
    }
  }

  @Test
  void aWriteTheFirstReplicaMissedReachesTheNewNodeFromTheNodeItReplaces() {
    startCluster(Handoff.DEFAULT_BYTES_PER_SECOND);
    Map<String, Entry> written = writeKeys(300, 0, 100);
    // A key the fourth node gains in place of a node that is not the first of its replicas by id,
    // with a newer version on that node and one other: a write the first replica missed (its
    // hint still on the way), acknowledged by two of three. Pulled from the first replica, the
    // fourth would lack it, and once the first three drop what they lost, two of its three new
    // replicas would not have it.
    Node fourth = nodes[3];
    String key = written.keySet().stream().filter(k -> gains(k, fourth.self()) && !replaced(k).equals(firstById(k))).findFirst()
        .orElseThrow();
    Entry newest = new Entry(bytes(key), written.get(key).version() + 1, bytes("acknowledged by two"));
    for (Node node : nodes) {
      if (node.self().equals(replaced(key)) || (!node.self().equals(firstById(key)) && join.replicasBefore(bytes(key)).contains(node.self()))) {
        node.engine.write(newest.key(), newest.value(), newest.version());
      }
    }

    startJoin();
    Await.until("the fourth node received its ranges", DEADLINE, () -> received.containsKey(fourth.self()));
    assertThat(fourth.engine.get(bytes(key))).isEqualTo(newest);
  }

  @Test
  void whenTheReplacedNodeDiesMidStreamItsRangesComeFromEveryOtherReplica() {
    startCluster(4 << 20);
    // About 9 MiB a pull for the fourth: more than the source's socket buffer (4 MiB at most
    // here) and the pull's (fixed at 256 KiB) hold, so that its stream is still being written
    // when it dies (a close drops what Netty had not written yet).
    Map<String, Entry> written = writeKeys(1200, 0, 32 << 10);
    Node fourth = nodes[3];
    startJoin();
    Await.until("the pull began", DEADLINE, () -> pulledRecords(fourth) > 0);
    // The pulls go one at a time, by the replaced node's id: the first is from the first node by id.
    Node source = java.util.Arrays.stream(nodes, 0, 3).min(Comparator.comparing(n -> n.self().id())).orElseThrow();
    source.close();
    assertThat(fourth.handoff.progress().getFirst().done()).as("still pulling when the source died").isFalse();

    Await.until("the fourth node received its ranges", DEADLINE, () -> received.containsKey(fourth.self()));
    assertGainedKeysHeld(fourth, written);
    // The dead node's ranges came, from where it stopped, from each of the two others.
    List<String> parts = java.util.Arrays.stream(nodes, 0, 3).filter(n -> n != source)
        .map(n -> "replacing:" + source.self().id() + "@" + n.self().id()).toList();
    assertThat(fourth.handoff.progress()).extracting(RangeProgress::name).containsAll(parts);
  }

  @Test
  void aReceiverRestartedMidStreamResumesWhereItWas() {
    startCluster(1 << 20);
    Map<String, Entry> written = writeKeys(1200, 0, 8 << 10);
    startJoin();
    Await.until("the pull began", DEADLINE, () -> pulledRecords(nodes[3]) > 0);
    nodes[3].close();
    nodes[3] = null;
    long pulledBefore = storedProgress(3);

    Node fourth = startNode(3, 1 << 20);
    fourth.handoff.changeStarted(join); // the membership tells a restarted node of the pending change
    Await.until("the fourth node received its ranges", DEADLINE, () -> received.containsKey(fourth.self()));
    assertGainedKeysHeld(fourth, written);
    long gained = written.keySet().stream().filter(k -> gains(k, fourth.self())).count();
    // Resumed at its last key, which it pulled again: one record more than it gains. Started over,
    // it would count what it pulled before twice.
    assertThat(pulledBefore).isPositive();
    assertThat(pulledRecords(fourth)).isEqualTo(gained + 1);
  }

  private void assertGainedKeysHeld(Node node, Map<String, Entry> written) {
    Map<String, Entry> local = localRecords(node.engine);
    for (Map.Entry<String, Entry> entry : written.entrySet()) {
      if (gains(entry.getKey(), node.self())) assertThat(local.get(entry.getKey())).as(entry.getKey()).isEqualTo(entry.getValue());
    }
  }

  private void startCluster(int bytesPerSecond) {
    for (int i = 0; i < 4; i++) {
      int port = FreePort.find();
      addresses.add(new NodeAddress("127.0.0.1", port));
      urls.add("http://127.0.0.1:" + port);
    }
    for (int i = 0; i < 4; i++) nodes[i] = startNode(i, bytesPerSecond);
    PlacementChange toThree = PlacementChange.between(addresses, addresses.subList(0, 3), 3);
    for (Node node : nodes) node.handoff.changeCommitted(toThree);
    join = PlacementChange.between(addresses.subList(0, 3), addresses, 3);
  }

  private void startJoin() {
    for (Node node : nodes) if (node != null) node.handoff.changeStarted(join);
  }

  private Node startNode(int i, int bytesPerSecond) {
    Topology topology = Topology.fromUrls(urls, "127.0.0.1", addresses.get(i).port());
    Cluster cluster = new Cluster(new Placement(topology), InternalAuth.withSecret(SECRET, Env.real()::wallMillis), 2_000, 16);
    Path dir = tmp.resolve("node" + i);
    Engine engine = Engine.open(dir.resolve("data"), EngineOptions.defaults());
    // A short drain: a node closed mid-stream stops serving its scans as a node that dies would.
    ServerOptions options = TestServer.options().withPort(addresses.get(i).port()).withShutdownTimeoutMillis(200);
    ShaleServer server = ShaleServer.start(engine, Env.real(), options, cluster, MissedWrites.NONE);
    Handoff handoff = server.handoff(engine, dir.resolve("handoff"), bytesPerSecond, node -> received.put(node, true), Env.real());
    return new Node(topology.self(), engine, TestServer.wrap(engine, server), handoff);
  }

  /** Writes {@code count} keys through the first node (every tenth one deleted); the records as its engine holds them. */
  private Map<String, Entry> writeKeys(int count, int fromKey, int valueBytes) {
    Random random = new Random(count);
    Map<String, Entry> written = new TreeMap<>();
    for (int i = fromKey; i < fromKey + count; i++) {
      String key = "key-" + i;
      byte[] value = new byte[valueBytes];
      random.nextBytes(value);
      // Every replica must answer, so that the first node's engine holds what each replica holds.
      assertThat(nodes[0].server.put(nodes[0].entityUri(key, ALL), value).statusCode()).isEqualTo(201);
      if (i % 10 == 0) assertThat(nodes[0].server.delete(nodes[0].entityUri(key, ALL)).statusCode()).isEqualTo(202);
      written.put(key, nodes[0].engine.get(bytes(key)));
    }
    return written;
  }

  private boolean gains(String key, NodeAddress node) {
    return join.rangeOf(bytes(key)).gaining().contains(node);
  }

  /** The node {@code key}'s new replica (the fourth) takes the place of. */
  private NodeAddress replaced(String key) {
    return join.rangeOf(bytes(key)).losing().iterator().next();
  }

  /** The first of {@code key}'s replicas before the join by id: where a pull from any replica in id order would go. */
  private NodeAddress firstById(String key) {
    return join.replicasBefore(bytes(key)).stream().min(Comparator.comparing(NodeAddress::id)).orElseThrow();
  }

  private static long pulledRecords(Node node) {
    return node.handoff.progress().stream().mapToLong(RangeProgress::records).sum();
  }

  /** The records the progress file of node {@code i} counts. */
  private long storedProgress(int i) {
    try {
      List<String> lines = java.nio.file.Files.readAllLines(tmp.resolve("node" + i).resolve("handoff").resolve("progress"));
      return lines.subList(2, lines.size()).stream().mapToLong(line -> Long.parseLong(line.split(" ")[3])).sum();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Map<String, Entry> localRecords(Engine engine) {
    Map<String, Entry> records = new TreeMap<>();
    try (EntryIterator it = engine.scan(new byte[0], null, true)) {
      while (it.hasNext()) {
        Entry entry = it.next();
        records.put(new String(entry.key(), StandardCharsets.UTF_8), entry);
      }
    }
    return records;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private record Node(NodeAddress self, Engine engine, TestServer server, Handoff handoff) implements AutoCloseable {
    URI entityUri(String key, String consistency) {
      return server.uri("/v0/entity?id=" + URLEncoder.encode(key, StandardCharsets.UTF_8) + consistency);
    }

    @Override
    public void close() {
      server.close();
    }
  }
}
