package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shale.bench.MemoryCgroup;
import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.TestSeed;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
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
import java.util.Locale;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node given {@code --memory} in a memory cgroup of that size, with clients that ask for large
 * values and do not read them: the values lent to their answers (native memory of the table
 * blocks they lie in) stay inside the answer budget, the node inside its cgroup, and every answer
 * comes whole once the clients read (docs/operations.md, "Memory"). Before lent values counted in
 * the budget, 32 such clients could pin 512 MiB of blocks. Needs root (a memory cgroup); skipped
 * elsewhere, saying why.
 */
class MemoryBudgetNodeTest {
  private static final long MEMORY_BYTES = 640L << 20;
  private static final int VALUE_BYTES = 1 << 20;
  private static final int KEYS = 96;
  private static final int CONNECTIONS = 32;
  private static final int PIPELINED = 16;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void lentValuesWaitingForSlowClientsStayInsideTheBudgetAndTheNodeInsideItsCgroup(@TempDir Path tmp) throws Exception {
    long seed = TestSeed.forTest("MemoryBudgetNodeTest");
    try (MemoryCgroup cgroup = cgroupOrSkip(MEMORY_BYTES)) {
      // The node enters the cgroup before java starts: all of its memory counts from the first byte.
      List<String> enterCgroup = List.of("sh", "-c",
          "echo $$ > " + cgroup.directory().resolve("cgroup.procs") + " && exec \"$@\"", "sh");
      try (NodeProcess node = NodeProcess.start(enterCgroup, "127.0.0.1", FreePort.find(), tmp.resolve("data"),
          List.of("-Xmx160m"), List.of("--memory", "640m")).awaitReady(Duration.ofSeconds(60))) {
        EntityClient client = new EntityClient(node.baseUrl());
        for (int k = 0; k < KEYS; k++) assertThat(client.put(key(k), value(seed, k)).status()).isEqualTo(201);
        compact(node); // the values now lie in tables: a GET lends its block

        long answerLimit = statusNumber(node, "answerLimitBytes");
        List<Socket> clients = new ArrayList<>();
        List<int[]> asked = new ArrayList<>();
        try {
          Random random = new Random(seed);
          for (int c = 0; c < CONNECTIONS; c++) {
            Socket socket = new Socket();
            socket.setReceiveBufferSize(16 << 10); // a slow reader: the answers wait in the node
            socket.connect(new InetSocketAddress("127.0.0.1", node.port()), 10_000);
            socket.setSoTimeout(60_000);
            int[] keys = random.ints(PIPELINED, 0, KEYS).toArray();
            StringBuilder requests = new StringBuilder();
            for (int k : keys) requests.append("GET /v0/entity?id=").append(key(k)).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
            socket.getOutputStream().write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            clients.add(socket);
            asked.add(keys);
          }
          // The answers pile up until they hold the budget; then reads wait for them to be written,
          // and the values lent stop growing (the same count over ten polls, about a second).
          long[] lastLeases = {-1};
          int[] unchanged = {0};
          Await.until("answers not yet written to hold the answer budget, and the leases to stop growing", Duration.ofSeconds(60),
              () -> {
                long now = statusNumber(node, "valueLeases");
                unchanged[0] = now == lastLeases[0] ? unchanged[0] + 1 : 0;
                lastLeases[0] = now;
                return unchanged[0] >= 10 && statusNumber(node, "answerBytes") >= answerLimit - VALUE_BYTES;
              });
          long leases = statusNumber(node, "valueLeases");
          long blocks = statusNumber(node, "blockMemoryBytes");
          // The budget, and past it at most one value a connection: a connection runs one read at
          // a time, and a read that reserved less than its value (none of that size seen lately)
          // still counts it once read; the reads after it wait.
          long bound = answerLimit + (long) CONNECTIONS * VALUE_BYTES;
          assertThat(leases * VALUE_BYTES).as("values lent to waiting answers").isLessThanOrEqualTo(bound);
          assertThat(blocks).as("blocks held: the cache's and the lent ones")
              .isLessThanOrEqualTo(statusNumber(node, "blockCacheCapacityBytes") + bound);
          assertThat(leases).as("far fewer than the %d asked for", CONNECTIONS * PIPELINED).isLessThan(CONNECTIONS * PIPELINED / 4);

          // Now every client reads, as real ones do at once: the answers drain and the parked reads run.
          ExecutorService readers = Executors.newFixedThreadPool(CONNECTIONS);
          try {
            List<Future<String>> checks = new ArrayList<>();
            for (int c = 0; c < CONNECTIONS; c++) {
              Socket socket = clients.get(c);
              int[] keys = asked.get(c);
              int connection = c;
              checks.add(readers.submit(() -> wrongAnswer(connection, socket, keys, seed)));
            }
            for (Future<String> check : checks) assertThat(check.get()).isEmpty();
          } finally {
            readers.shutdownNow();
          }
        } finally {
          for (Socket socket : clients) socket.close();
        }
        assertThat(cgroup.oomKills()).as("the node was never killed for memory").isZero();
        assertThat(statusNumber(node, "residentBytes")).as("the node's resident memory").isLessThan(MEMORY_BYTES);
        assertThat(node.terminate(Duration.ofSeconds(20))).isZero();
      }
    }
  }

  private static MemoryCgroup cgroupOrSkip(long limitBytes) {
    try {
      return MemoryCgroup.create("shale-node-test-" + ProcessHandle.current().pid(), limitBytes);
    } catch (IOException e) {
      assumeTrue(false, "no memory cgroup can be made here (" + e.getMessage() + ")");
      throw new AssertionError(e);
    }
  }

  private static void compact(NodeProcess node) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/v0/admin/compact"))
        .timeout(Duration.ofMinutes(2)).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
  }

  /** A number of /v0/status: a member of its "memory" object, or a top-level one. */
  private static long statusNumber(NodeProcess node, String name) {
    String status;
    try {
      status = HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/v0/status")).timeout(Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    Matcher m = Pattern.compile("\"" + name + "\": (-?\\d+)").matcher(status);
    assertThat(m.find()).as("%s in %s", name, status).isTrue();
    return Long.parseLong(m.group(1));
  }

  /** What is wrong with the answers {@code socket} reads for {@code keys}, or "" if nothing. */
  private static String wrongAnswer(int connection, Socket socket, int[] keys, long seed) throws IOException {
    InputStream in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
    for (int k : keys) {
      byte[] got = readValue(in);
      byte[] want = value(seed, k);
      if (!Arrays.equals(got, want)) {
        return "connection " + connection + ", key " + k + ": " + got.length + " bytes, want " + want.length
            + ", first difference at " + Arrays.mismatch(got, want);
      }
    }
    return "";
  }

  /** The body of the next answer, which must be a 200 with a Content-Length. */
  private static byte[] readValue(InputStream in) throws IOException {
    String statusLine = line(in);
    assertThat(statusLine).startsWith("HTTP/1.1 200");
    int length = -1;
    for (String header = line(in); !header.isEmpty(); header = line(in)) {
      if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) length = Integer.parseInt(header.substring(15).trim());
    }
    assertThat(length).as("a Content-Length").isNotNegative();
    return in.readNBytes(length);
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) throw new IOException("the connection ended mid-answer");
      if (b != '\r') line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  private static String key(int k) {
    return "big-" + k;
  }

  private static byte[] value(long seed, int k) {
    byte[] value = new byte[VALUE_BYTES];
    new SplittableRandom(seed * 31 + k).nextBytes(value);
    return value;
  }
}
