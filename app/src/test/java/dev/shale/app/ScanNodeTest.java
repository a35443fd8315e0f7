package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.OpenTables;
import dev.shale.testkit.TestSeed;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import dev.shale.testkit.Await;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scans against real node processes: a range four times the heap, a client that disconnects
 * mid-scan, and a cluster with a node down.
 */
class ScanNodeTest {
  private static final int VALUE_BYTES = 256 * 1024;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void aScanOfFourTimesTheHeapStreamsEveryEntryInOrder(@TempDir Path tmp) throws Exception {
    long seed = TestSeed.forTest("ScanNodeTest.largerThanHeap");
    int values = 1024; // of 256 KiB: 256 MiB through a 64 MiB heap
    try (NodeProcess node = NodeProcess.start(FreePort.find(), tmp.resolve("data"), List.of("-Xmx64m"),
        List.of("--memtable-size", "4m")).awaitReady(Duration.ofSeconds(60))) {
      EntityClient client = new EntityClient(node.baseUrl());
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> puts = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
          int first = c;
          puts.add(pool.submit(() -> {
            for (int i = first; i < values; i += 4) {
              try {
                assertThat(client.put(id(i), value(seed, i)).status()).isEqualTo(201);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            }
            return null;
          }));
        }
        for (Future<?> f : puts) f.get();
      } finally {
        pool.shutdownNow();
      }
      HttpResponse<InputStream> scan = HTTP.send(
          HttpRequest.newBuilder(URI.create(node.baseUrl() + "/v0/entities?start=big")).timeout(Duration.ofMinutes(2)).build(),
          HttpResponse.BodyHandlers.ofInputStream());
      assertThat(scan.statusCode()).isEqualTo(200);
      assertThat(scan.headers().firstValue("transfer-encoding")).hasValue("chunked");
      // HttpClient joins the chunks; every entry here is "big%05d\n" and 256 KiB, so it splits back.
      try (DataInputStream in = new DataInputStream(scan.body())) {
        byte[] keyLine = new byte[id(0).length() + 1];
        byte[] value = new byte[VALUE_BYTES];
        for (int i = 0; i < values; i++) {
          in.readFully(keyLine);
          assertThat(new String(keyLine, StandardCharsets.UTF_8)).isEqualTo(id(i) + "\n");
          in.readFully(value);
          assertThat(Arrays.equals(value, value(seed, i))).as("value of %s", id(i)).isTrue();
        }
        assertThat(in.read()).as("nothing after the last entry").isEqualTo(-1);
      }
      assertThat(node.terminate(Duration.ofSeconds(20))).isZero();
    }
  }

  @Test
  void aClusterScanToleratesANodeDownAtTwoOfThreeRefusesAtThreeOfThreeAndTakesTheNewestReplica(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 3, List.of()).startAll()) {
      EntityClient client = cluster.client(0);
      Map<String, String> model = new TreeMap<>();
      for (int i = 0; i < 90; i++) {
        String id = String.format("key-%03d", i);
        assertThat(client.put(id, ("v" + i).getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
        model.put(id, "v" + i);
      }
      assertThat(client.delete("key-007").status()).isEqualTo(202);
      model.remove("key-007");
      List<String> all = new ArrayList<>();
      model.forEach((k, v) -> all.add(k + "\n" + v));
      for (int n = 0; n < 3; n++) {
        assertThat(entries(cluster.urls().get(n), "start=key&scope=cluster")).as("via node %d", n).isEqualTo(all);
      }

      cluster.node(2).kill();
      // Every key has copies on the two live nodes (from = 3): all of them, each once, in order.
      assertThat(entries(cluster.urls().get(0), "start=key&scope=cluster")).as("2/3, node 2 down").isEqualTo(all);
      HttpResponse<String> refused = get(cluster.urls().get(1), "start=key&scope=cluster&ack=3");
      assertThat(refused.statusCode()).isEqualTo(504);
      assertThat(refused.body()).contains(cluster.urls().get(2));

      // Writes node 2 misses, then node 2 back and node 0 gone: node 2 may still hold the old
      // records (its hints sit on node 0), and the merge must take node 1's newer ones.
      assertThat(client.put("key-001", "newer".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
      assertThat(client.delete("key-002").status()).isEqualTo(202);
      model.put("key-001", "newer");
      model.remove("key-002");
      cluster.restart(2);
      cluster.node(0).kill();
      List<String> newest = new ArrayList<>();
      model.forEach((k, v) -> newest.add(k + "\n" + v));
      assertThat(entries(cluster.urls().get(2), "start=key&scope=cluster")).as("via node 2, node 0 down").isEqualTo(newest);
      assertThat(entries(cluster.urls().get(1), "start=key-000&end=key-003&scope=cluster&ack=2"))
          .containsExactly("key-000\nv0", "key-001\nnewer");
    }
  }

  @Test
  void aClientThatDisconnectsMidScanLetsTheNodeCloseAndDeleteTheTablesItPinned(@TempDir Path tmp) throws Exception {
    long seed = TestSeed.forTest("ScanNodeTest.disconnect");
    Path data = tmp.resolve("data");
    try (NodeProcess node = NodeProcess.start(FreePort.find(), data, List.of("-Xmx128m"), List.of())
        .awaitReady(Duration.ofSeconds(60))) {
      EntityClient client = new EntityClient(node.baseUrl());
      for (int i = 0; i < 64; i++) assertThat(client.put(id(i), value(seed, i)).status()).isEqualTo(201);
      assertThat(compact(node).statusCode()).isEqualTo(200);
      // Obsolete tables go once their last reader lets go: wait until only the live ones are open.
      Await.until("only the live tables open", Duration.ofSeconds(30), () -> OpenTables.of(node.pid(), data).equals(OpenTables.onDisk(data)));
      Set<Path> first = OpenTables.of(node.pid(), data);
      assertThat(first).isNotEmpty();

      try (Socket socket = new Socket()) {
        socket.setReceiveBufferSize(16 * 1024);
        socket.connect(new InetSocketAddress("127.0.0.1", node.port()));
        socket.getOutputStream().write("GET /v0/entities?start=big HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] head = socket.getInputStream().readNBytes(64 * 1024); // the status line and a little of the body
        assertThat(new String(head, 0, 15, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200 OK");
        // Every key rewritten and compacted: the tables the scan read are obsolete. A scan that
        // waits for its client holds no iterator (issue 35 C), so they go while it is connected.
        for (int i = 0; i < 64; i++) assertThat(client.put(id(i), value(seed + 1, i)).status()).isEqualTo(201);
        assertThat(compact(node).statusCode()).isEqualTo(200);
        Await.until("the waiting scan's tables to be closed and deleted", Duration.ofSeconds(30), () -> {
          Set<Path> open = OpenTables.of(node.pid(), data);
          return first.stream().noneMatch(t -> open.contains(t) || Files.exists(t));
        });
      } // the client goes away mid-scan
      Await.until("the scan's tables to be closed and deleted", Duration.ofSeconds(30), () -> {
        Set<Path> open = OpenTables.of(node.pid(), data);
        return first.stream().noneMatch(t -> open.contains(t) || Files.exists(t));
      });
      assertThat(node.terminate(Duration.ofSeconds(20))).isZero();
    }
  }

  private static HttpResponse<String> compact(NodeProcess node) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/v0/admin/compact"))
        .timeout(Duration.ofMinutes(2)).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The entries of a 200 scan, split back from the joined chunks (keys here have no newline, values no "key-"). */
  private static List<String> entries(String baseUrl, String query) throws Exception {
    HttpResponse<String> response = get(baseUrl, query);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    for (String piece : response.body().split("(?=key-)", -1)) if (!piece.isEmpty()) out.add(piece);
    return out;
  }

  private static HttpResponse<String> get(String baseUrl, String query) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v0/entities?" + query)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String id(int i) {
    return String.format("big%05d", i);
  }

  private static byte[] value(long seed, int i) {
    byte[] value = new byte[VALUE_BYTES];
    new SplittableRandom(seed * 31 + i).nextBytes(value);
    return value;
  }
}
