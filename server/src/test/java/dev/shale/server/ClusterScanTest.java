package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.storage.Versions;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scope=cluster} over real servers in one JVM: records written straight into each
 * node's engine with chosen versions make replicas diverge, as replication's partial writes
 * would.
 */
class ClusterScanTest {
  static final byte[] SECRET = "cluster-scan-test-secret".getBytes(StandardCharsets.UTF_8);
  private static final long NOW = System.currentTimeMillis();

  @Test
  void eachKeyOnceWithItsNewestRecordAcrossNodes(@TempDir Path tmp) throws IOException {
    try (Nodes nodes = Nodes.start(tmp, 3, 3)) {
      write(nodes.get(0), "a", 10, "a-old");
      write(nodes.get(1), "a", 20, "a-new");
      write(nodes.get(0), "b", 10, "b-old");
      write(nodes.get(2), "b", 20, null); // deleted later on another node
      write(nodes.get(1), "c", 10, null);
      write(nodes.get(2), "c", 20, "c-back");
      write(nodes.get(2), "d", 10, "d");
      write(nodes.get(0), "e", 30, "e-same");
      write(nodes.get(1), "e", 30, "e-same");
      write(nodes.get(2), "z", 30, "out of range");
      for (int i = 0; i < 3; i++) {
        assertThat(texts(scan(nodes.get(i), "start=a&end=z&scope=cluster"))).as("via node %d", i)
            .containsExactly("a\na-new", "c\nc-back", "d\nd", "e\ne-same");
      }
      assertThat(texts(scan(nodes.get(0), "start=a&end=z"))).as("the local scope: node 0's own")
          .containsExactly("a\na-old", "b\nb-old", "e\ne-same");
    }
  }

  @Test
  void onlyTheFirstFromNodesOfAKeysPreferenceListAnswerForIt(@TempDir Path tmp) throws IOException {
    try (Nodes nodes = Nodes.start(tmp, 3, 3)) {
      String key = "k-pref";
      List<NodeAddress> list = nodes.placement.preferenceList(key.getBytes(StandardCharsets.UTF_8), 3);
      write(nodes.at(list.get(0)), key, 10, "owner's");
      write(nodes.at(list.get(1)), key, 20, "second's");
      write(nodes.at(list.get(2)), key, 30, "third's");
      assertThat(texts(scan(nodes.get(0), "start=k&end=l&scope=cluster&from=1&ack=1"))).containsExactly(key + "\nowner's");
      assertThat(texts(scan(nodes.get(0), "start=k&end=l&scope=cluster&from=2&ack=1"))).containsExactly(key + "\nsecond's");
      assertThat(texts(scan(nodes.get(0), "start=k&end=l&scope=cluster"))).containsExactly(key + "\nthird's");
    }
  }

  @Test
  void aNodeDownIsToleratedUpToFromMinusAckAndOtherwise504(@TempDir Path tmp) throws IOException {
    try (Nodes nodes = Nodes.start(tmp, 3, 2)) { // the third node never starts
      write(nodes.get(0), "k1", 10, "one");
      write(nodes.get(1), "k2", 10, "two");
      assertThat(texts(scan(nodes.get(0), "start=k&scope=cluster"))).as("2/3 with one node down").containsExactly("k1\none", "k2\ntwo");
      assertThat(texts(scan(nodes.get(1), "start=k&scope=cluster&ack=2&from=3"))).containsExactly("k1\none", "k2\ntwo");

      RawConnection.Chunked all = scan(nodes.get(0), "start=k&scope=cluster&ack=3");
      assertThat(all.status()).isEqualTo(504);
      String reason = new String(all.chunks().getFirst(), StandardCharsets.UTF_8);
      assertThat(reason).contains("cannot connect to " + nodes.urls.get(2), "ack=3 of from=3 tolerates 0");
      assertThat(scan(nodes.get(1), "start=k&scope=cluster&ack=1&from=1").status()).as("1/1 tolerates none either").isEqualTo(504);
    }
  }

  @Test
  void aLargeRangeMergesInKeyOrderThroughTheApi(@TempDir Path tmp) throws IOException {
    Random random = new Random(TestSeed.forTest("ClusterScanTest.largeRange"));
    try (Nodes nodes = Nodes.start(tmp, 3, 3)) {
      TreeMap<String, String> model = new TreeMap<>();
      for (int i = 0; i < 1200; i++) {
        String id = String.format("user:%05d", random.nextInt(1600));
        String value = "v".repeat(random.nextInt(3000)) + i;
        TestServer via = nodes.get(i % 3).server;
        assertThat(via.put(via.entity(id), value.getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(201);
        model.put(id, value);
        if (random.nextInt(6) == 0) {
          assertThat(via.delete(via.entity(id)).statusCode()).isEqualTo(202);
          model.remove(id);
        }
      }
      List<String> expected = new ArrayList<>();
      model.forEach((k, v) -> expected.add(k + "\n" + v));
      assertThat(texts(scan(nodes.get(1), "start=user&scope=cluster"))).isEqualTo(expected);
      List<String> part = new ArrayList<>();
      model.subMap("user:00400", "user:00800").forEach((k, v) -> part.add(k + "\n" + v));
      assertThat(texts(scan(nodes.get(2), "start=user:00400&end=user:00800&scope=cluster"))).isEqualTo(part);
    }
  }

  @Test
  void aNodeThatGoesAwayMidScanCutsTheAnswer(@TempDir Path tmp) throws IOException {
    try (Nodes nodes = Nodes.start(tmp, 2, 2)) {
      byte[] value = new byte[64 * 1024];
      for (int i = 0; i < 512; i++) nodes.get(1).engine.put(String.format("big%04d", i).getBytes(StandardCharsets.UTF_8), value);
      try (RawConnection c = nodes.get(0).server.connect()) {
        c.socket().setReceiveBufferSize(16 * 1024);
        c.send("GET /v0/entities?start=big&scope=cluster&ack=1 HTTP/1.1\r\nHost: x\r\n\r\n");
        ScanFlowTest.ChunkReader reader = new ScanFlowTest.ChunkReader(c.input());
        assertThat(reader.status()).isEqualTo(200);
        assertThat(reader.next()).isNotNull();
        nodes.get(1).server.server.close(); // cuts its connections after the shutdown timeout
        int chunks = 1;
        boolean cut = false;
        try {
          while (reader.next() != null) chunks++;
        } catch (IOException e) {
          cut = true;
        }
        assertThat(cut).as("the answer ends without its terminating chunk (after %d chunks of 512)", chunks).isTrue();
        assertThat(chunks).isLessThan(512);
      }
    }
  }

  @Test
  void aClientThatStopsReadingHoldsThePeersBackAndItsDisconnectEndsTheirScans(@TempDir Path tmp) throws Exception {
    List<ScanFlowTest.CountingEngine> counting = new ArrayList<>();
    List<Integer> ports = List.of(FreePort.find(), FreePort.find());
    try (Nodes nodes = Nodes.start(tmp, ports, 2, 5_000, e -> {
      ScanFlowTest.CountingEngine c = new ScanFlowTest.CountingEngine(e);
      counting.add(c);
      return c;
    })) {
      byte[] value = new byte[64 * 1024];
      long total = 0;
      for (int i = 0; i < 1024; i++) { // 64 MiB on node 1
        byte[] key = String.format("big%04d", i).getBytes(StandardCharsets.UTF_8);
        nodes.get(1).engine.put(key, value);
        total += key.length + 1 + value.length;
      }
      ScanFlowTest.CountingEngine peer = counting.get(1);
      try (RawConnection c = nodes.get(0).server.connect()) {
        c.socket().setReceiveBufferSize(16 * 1024);
        c.send("GET /v0/entities?start=big&scope=cluster HTTP/1.1\r\nHost: x\r\n\r\n");
        ScanFlowTest.ChunkReader reader = new ScanFlowTest.ChunkReader(c.input());
        assertThat(reader.status()).isEqualTo(200);
        assertThat(reader.next()).isNotNull();
        // The client reads no more: wait until the peer's scan stops moving, then check how far it got.
        // (Without backpressure it would pull all 64 MiB, which takes well under a second here.)
        long[] last = {-1, System.nanoTime()}; // bytes, when they last changed
        dev.shale.testkit.Await.until("the peer's scan to stop moving for 500 ms", TestServer.TIMEOUT, () -> {
          long now = peer.pulledBytes.get();
          if (now != last[0]) {
            last[0] = now;
            last[1] = System.nanoTime();
          }
          return System.nanoTime() - last[1] > 500_000_000L;
        });
        assertThat(peer.pulledBytes.get()).as("bytes the peer pulled while the client read none of %d", total)
            .isLessThan(total / 2);
        // Held back, the peer's scan waits for the coordinator holding no iterator (issue 35 C).
        dev.shale.testkit.Await.until("the held-back peer's scan to let its iterator go", TestServer.TIMEOUT,
            () -> peer.openIterators.get() == 0);
      } // the client goes away
      dev.shale.testkit.Await.until("the peer's and the coordinator's scans to be closed", TestServer.TIMEOUT,
          () -> peer.openIterators.get() == 0 && counting.get(0).openIterators.get() == 0);
    }
  }

  static void write(Node node, String id, long logical, String value) {
    node.engine.write(id.getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8), Versions.of(NOW, (int) logical));
  }

  static RawConnection.Chunked scan(Node node, String query) throws IOException {
    try (RawConnection c = node.server.connect()) {
      c.send(("GET /v0/entities?" + query + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.UTF_8));
      return c.readChunked();
    }
  }

  static List<String> texts(RawConnection.Chunked scan) {
    assertThat(scan.status()).as("status; body %s", scan.chunks().isEmpty() ? "" : new String(scan.chunks().getFirst(), StandardCharsets.UTF_8)).isEqualTo(200);
    assertThat(scan.complete()).isTrue();
    return scan.chunks().stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList();
  }

  static String enc(String id) {
    return URLEncoder.encode(id, StandardCharsets.UTF_8);
  }

  record Node(Engine engine, TestServer server) {}

  /** A cluster of {@code size} nodes of which the first {@code started} run in this JVM. */
  record Nodes(List<Node> nodes, List<String> urls, Placement placement) implements AutoCloseable {
    static Nodes start(Path tmp, int size, int started) {
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < size; i++) ports.add(FreePort.find());
      return start(tmp, ports, started, 5_000);
    }

    static Nodes start(Path tmp, List<Integer> ports, int started, long timeoutMillis) {
      return start(tmp, ports, started, timeoutMillis, java.util.function.UnaryOperator.identity());
    }

    /** Nodes on {@code ports}, of which the first {@code started} run here; {@code timeoutMillis}: the forward timeout. */
    static Nodes start(
        Path tmp, List<Integer> ports, int started, long timeoutMillis, java.util.function.UnaryOperator<Engine> wrap) {
      List<String> urls = ports.stream().map(p -> "http://127.0.0.1:" + p).toList();
      List<Node> nodes = new ArrayList<>();
      Nodes all = new Nodes(nodes, urls, new Placement(Topology.fromUrls(urls, "127.0.0.1", ports.getFirst())));
      try {
        for (int i = 0; i < started; i++) {
          Topology topology = Topology.fromUrls(urls, "127.0.0.1", ports.get(i));
          Cluster cluster = new Cluster(new Placement(topology), InternalAuth.withSecret(SECRET, Env.real()::wallMillis), timeoutMillis, 16);
          Engine engine = Engine.open(tmp.resolve("node-" + i), EngineOptions.defaults());
          try {
            ServerOptions options = TestServer.options().withPort(ports.get(i)).withShutdownTimeoutMillis(200);
            nodes.add(new Node(engine, TestServer.wrap(engine, ShaleServer.start(wrap.apply(engine), Env.real(), options, cluster))));
          } catch (RuntimeException e) {
            engine.close();
            throw e;
          }
        }
        return all;
      } catch (RuntimeException e) {
        all.close();
        throw e;
      }
    }

    Node get(int i) {
      return nodes.get(i);
    }

    Node at(NodeAddress address) {
      return nodes.get(urls.indexOf(address.url()));
    }

    @Override
    public void close() {
      for (Node node : nodes) node.server.close();
    }
  }
}
