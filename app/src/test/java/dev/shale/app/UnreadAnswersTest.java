package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that pipeline many GETs of a large value and do not read the answers must not take a
 * node's memory: the node holds their answers within its answer budget, stops reading them, and
 * answers every GET, whole and right, once they read. (Issue 13, item 3: four such connections
 * drove a 256 MiB node into OutOfMemoryErrors, 500s and hung connections.)
 */
class UnreadAnswersTest {
  private static final int VALUE_BYTES = 16 << 20;
  private static final int CONNECTIONS = 4;
  private static final int GETS_PER_CONNECTION = 16;
  private static final int READ_TIMEOUT_MILLIS = 60_000;

  @Test
  void pipelinedLargeGetsThatNobodyReadsAreAllAnsweredOnceRead(@TempDir Path tmp) throws Exception {
    long seed = TestSeed.forTest("UnreadAnswersTest");
    byte[] value = new byte[VALUE_BYTES];
    new SplittableRandom(seed).nextBytes(value);
    // A small memtable: the value is read from a table, a fresh heap copy per GET.
    try (NodeProcess node = NodeProcess.start(FreePort.find(), tmp.resolve("data"), List.of("-Xmx128m"),
        List.of("--memtable-size", "262144")).awaitReady(Duration.ofSeconds(60))) {
      assertThat(new EntityClient(node.baseUrl()).put("big", value).status()).isEqualTo(201);
      List<Socket> sockets = new ArrayList<>();
      ExecutorService readers = Executors.newFixedThreadPool(CONNECTIONS);
      try {
        // Every GET is sent before any answer is read.
        for (int c = 0; c < CONNECTIONS; c++) sockets.add(pipelineGets(node.port()));
        // Then all are read at once: the node's answer budget is shared, so a client that read
        // one connection after the other could wait for answers held by the others, unread.
        List<Future<?>> reads = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
          int connection = c;
          reads.add(readers.submit(() -> readAll(sockets.get(connection), connection, value)));
        }
        for (Future<?> read : reads) read.get();
      } finally {
        readers.shutdownNow();
        for (Socket socket : sockets) socket.close();
      }
      assertThat(node.log()).doesNotContain("OutOfMemoryError");
      assertThat(node.terminate(Duration.ofSeconds(10))).isZero();
    }
  }

  private static Void readAll(Socket socket, int connection, byte[] value) throws IOException {
    InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    for (int i = 0; i < GETS_PER_CONNECTION; i++) {
      Answer answer = read(in);
      assertThat(answer.status()).as("connection %d, GET %d: %s", connection, i, answer.text()).isEqualTo(200);
      assertThat(answer.body()).as("connection %d, GET %d", connection, i).isEqualTo(value);
    }
    return null;
  }

  private static Socket pipelineGets(int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
    socket.setSoTimeout(READ_TIMEOUT_MILLIS); // a hung connection fails the test
    String get = "GET /v0/entity?id=big HTTP/1.1\r\nHost: localhost\r\n\r\n";
    socket.getOutputStream().write(get.repeat(GETS_PER_CONNECTION).getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    return socket;
  }

  private record Answer(int status, byte[] body) {
    String text() {
      return status == 200 ? "a value" : new String(body, StandardCharsets.UTF_8).trim();
    }
  }

  /** One response with a Content-Length (every answer to a GET of an entity has one). */
  private static Answer read(InputStream in) throws IOException {
    String statusLine = line(in);
    if (!statusLine.startsWith("HTTP/1.1 ")) throw new IOException("not a status line: " + statusLine);
    int status = Integer.parseInt(statusLine.substring(9, 12));
    int length = -1;
    for (String header = line(in); !header.isEmpty(); header = line(in)) {
      if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(header.substring("content-length:".length()).trim());
      }
    }
    if (length < 0) throw new IOException("an answer without Content-Length");
    byte[] body = in.readNBytes(length);
    if (body.length < length) throw new IOException("the connection ended inside an answer");
    return new Answer(status, body);
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) throw new IOException("the connection ended before an answer");
      if (b != '\r') line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII);
  }
}
