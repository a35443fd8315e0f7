package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.OpenTables;
import dev.shale.testkit.TestSeed;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 C: scans whose clients stop reading held their engine iterators, and with them their
 * read views (the tables and memtables that later flushes and compactions replaced, which could
 * be neither freed nor deleted) and read-ahead windows, as long as the clients took: 24 slow scans
 * took a node from 404 to 1,326 MiB. A scan waiting for its reader now lets its iterator go, and
 * resumes after its last key when the reader reads again.
 */
class SlowScanPinTest {
  private static final int VALUE_BYTES = 64 * 1024;
  private static final int KEYS = 256; // 16 MiB: far more than the socket buffers take
  private static final int SCANS = 6;

  @Test
  void scansWaitingForTheirReadersPinNothingAndResumeWithEveryKeyOnceInOrder(@TempDir Path dir) throws IOException {
    long seed = TestSeed.forTest("SlowScanPinTest");
    ScanFlowTest.CountingEngine[] counting = new ScanFlowTest.CountingEngine[1];
    try (TestServer server = TestServer.start(dir, TestServer.options(), e -> counting[0] = new ScanFlowTest.CountingEngine(e))) {
      for (int i = 0; i < KEYS; i++) server.engine.put(key(i), value(seed, i));
      server.engine.compact();
      Await.until("open tables to settle", TestServer.TIMEOUT, () -> OpenTables.ofThisProcess(dir).equals(OpenTables.onDisk(dir)));
      Set<Path> firstTables = OpenTables.ofThisProcess(dir);
      assertThat(firstTables).isNotEmpty();

      List<Socket> sockets = new ArrayList<>();
      List<ScanFlowTest.ChunkReader> readers = new ArrayList<>();
      try {
        for (int s = 0; s < SCANS; s++) {
          Socket socket = new Socket();
          sockets.add(socket);
          socket.setReceiveBufferSize(16 * 1024);
          socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
          socket.setSoTimeout((int) TestServer.TIMEOUT.toMillis());
          socket.getOutputStream().write("GET /v0/entities?start=k HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          ScanFlowTest.ChunkReader reader = new ScanFlowTest.ChunkReader(new BufferedInputStream(socket.getInputStream()));
          assertThat(reader.status()).isEqualTo(200);
          assertThat(reader.next()).isEqualTo(concat(key(0), value(seed, 0)));
          readers.add(reader);
        }
        // The clients read no more: their scans fill the socket buffers and wait, holding no iterator.
        Await.until("the waiting scans to let their iterators go (open: " + counting[0].openIterators.get() + ")",
            TestServer.TIMEOUT, () -> counting[0].openIterators.get() == 0);
        assertThat(TestServer.text(server.get(server.uri("/v0/status")))).contains("\"scanViews\": 0");

        // Rewrite the range and compact: nothing keeps the tables of before open or on disk.
        for (int i = 0; i < KEYS; i++) server.engine.put(key(i), value(seed + 1, i));
        server.engine.compact();
        Await.until("the tables of before the rewrite to be closed and deleted while " + SCANS + " scans wait",
            TestServer.TIMEOUT, () -> {
              Set<Path> open = OpenTables.ofThisProcess(dir);
              return firstTables.stream().noneMatch(t -> open.contains(t) || Files.exists(t));
            });

        // Each scan goes on after its last key, on the view of now: every key once, in order,
        // with its value of before or of after the rewrite.
        for (ScanFlowTest.ChunkReader reader : readers) {
          for (int i = 1; i < KEYS; i++) {
            byte[] chunk = reader.next();
            assertThat(chunk).as("chunk %d", i).isNotNull();
            boolean before = Arrays.equals(chunk, concat(key(i), value(seed, i)));
            boolean after = Arrays.equals(chunk, concat(key(i), value(seed + 1, i)));
            assertThat(before || after).as("chunk %d is key %d with its value of before or after", i, i).isTrue();
          }
          assertThat(reader.next()).as("the terminating chunk").isNull();
        }
      } finally {
        for (Socket socket : sockets) socket.close();
      }
      Await.until("every iterator to be closed", TestServer.TIMEOUT, () -> counting[0].openIterators.get() == 0);
      Set<Path> open = new TreeSet<>(OpenTables.ofThisProcess(dir));
      open.retainAll(firstTables);
      assertThat(open).isEmpty();
    }
  }

  private static byte[] key(int i) {
    return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(long seed, int i) {
    byte[] value = new byte[VALUE_BYTES];
    new SplittableRandom(seed * 31 + i).nextBytes(value);
    return value;
  }

  private static byte[] concat(byte[] key, byte[] value) {
    byte[] out = Arrays.copyOf(key, key.length + 1 + value.length);
    out[key.length] = '\n';
    System.arraycopy(value, 0, out, key.length + 1, value.length);
    return out;
  }
}
