package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.testkit.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client writes one event loop receives in one turn go to the engine as one group
 * ({@code LoopWriteGroup}), each answered as if written alone; a group the engine will not take
 * at once is written write by write on the pool.
 */
class WriteGroupTest {
  private static final int CONNECTIONS = 8;

  @TempDir Path dir;
  TestServer node;
  GroupRecordingEngine engine;

  @AfterEach
  void stop() {
    if (engine != null) engine.release.countDown();
    if (node != null) node.close();
  }

  @Test
  @Timeout(60)
  void writesOfManyConnectionsReadInOneTurnAreWrittenAsOneGroup() throws Exception {
    // One event loop. The first write's group holds the loop (its engine call waits for the
    // test) while eight more connections send a PUT or a DELETE each: the bytes wait in the
    // kernel, and the loop's next turn reads all eight and writes them together.
    node = TestServer.start(dir, TestServer.options().withIoThreads(1), e -> engine = new GroupRecordingEngine(e));
    CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> node.put(node.entity("first"), new byte[] {1}));
    assertThat(engine.entered.await(30, TimeUnit.SECONDS)).as("the first group reached the engine").isTrue();

    List<Socket> sockets = new ArrayList<>();
    int requestBytes = 0;
    try {
      for (int i = 0; i < CONNECTIONS; i++) {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), node.server.port());
        sockets.add(socket);
        String request = i % 4 == 3
            ? "DELETE /v0/entity?id=k" + i + " HTTP/1.1\r\nHost: x\r\n\r\n"
            : "PUT /v0/entity?id=k" + i + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nv" + i;
        OutputStream out = socket.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        requestBytes += request.length();
      }
      // The loop reads all eight in one turn only if all their bytes are in by then: on a busy
      // machine the kernel may take its time over loopback, so wait until it shows them.
      int expected = requestBytes;
      Await.until("the requests' bytes at the node's sockets", TestServer.TIMEOUT,
          () -> bytesWaitingAt(node.server.port()) == expected);
      engine.release.countDown();
      assertThat(first.get().statusCode()).isEqualTo(201);
      for (int i = 0; i < CONNECTIONS; i++) {
        assertThat(statusLine(sockets.get(i).getInputStream())).as("answer %d", i)
            .isEqualTo(i % 4 == 3 ? "HTTP/1.1 202 Accepted" : "HTTP/1.1 201 Created");
      }
    } finally {
      for (Socket socket : sockets) socket.close();
    }

    assertThat(engine.groupSizes).as("the sizes of the groups written").contains(1).anyMatch(size -> size > 1);
    assertThat(engine.groupSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(CONNECTIONS + 1);
    for (int i = 0; i < CONNECTIONS; i++) {
      HttpResponse<byte[]> read = node.get(node.entity("k" + i));
      if (i % 4 == 3) {
        assertThat(read.statusCode()).isEqualTo(404);
      } else {
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(new String(read.body(), StandardCharsets.US_ASCII)).isEqualTo("v" + i);
      }
    }
  }

  /**
   * The bytes received and not yet read by the sockets of local TCP port {@code port}, accepted
   * or still in the listening socket's queue: the rx_queue of /proc/net/tcp (and tcp6), whose
   * columns are {@code sl local_address rem_address st tx_queue:rx_queue ...} in hex.
   */
  private static long bytesWaitingAt(int port) {
    long bytes = 0;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (String line : lines.subList(1, lines.size())) {
        String[] fields = line.trim().split("\\s+");
        String local = fields[1];
        boolean established = fields[3].equals("01");
        int localPort = Integer.parseInt(local.substring(local.indexOf(':') + 1), 16);
        if (established && localPort == port) bytes += Long.parseLong(fields[4].substring(fields[4].indexOf(':') + 1), 16);
      }
    }
    return bytes;
  }

  // The status line of the first answer on a connection.
  private static String statusLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\r'; b = in.read()) {
      if (b < 0) throw new IOException("the connection closed before an answer");
      line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  /** Records the size of every group written; the first waits until the test releases it. */
  static final class GroupRecordingEngine extends ForwardingEngine {
    final List<Integer> groupSizes = new CopyOnWriteArrayList<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    GroupRecordingEngine(Engine delegate) {
      super(delegate);
    }

    @Override
    public boolean tryWriteAll(List<Entry> records) {
      if (entered.getCount() > 0) {
        entered.countDown();
        try {
          if (!release.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("the test never released the first group");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      boolean written = super.tryWriteAll(records);
      if (written) groupSizes.add(records.size());
      return written;
    }
  }
}
