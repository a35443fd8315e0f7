package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.testkit.Await;
import dev.shale.testkit.OpenTables;
import dev.shale.testkit.TestSeed;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scan's flow control: a client that reads slowly holds the scan back instead of making the
 * server buffer the range, and a client that goes away releases the scan's iterator and tables.
 */
class ScanFlowTest {
  private static final int VALUE_BYTES = 64 * 1024;

  /** Counts what scans pull from the engine and which of their iterators are still open. */
  static final class CountingEngine extends ForwardingEngine {
    final AtomicLong pulledBytes = new AtomicLong();
    final AtomicInteger openIterators = new AtomicInteger();

    CountingEngine(Engine delegate) {
      super(delegate);
    }

    @Override
    public EntryIterator scan(byte[] start, byte[] end, boolean includeTombstones) {
      EntryIterator it = super.scan(start, end, includeTombstones);
      openIterators.incrementAndGet();
      return new EntryIterator() {
        private boolean closed;

        @Override
        public boolean hasNext() {
          boolean more = it.hasNext();
          if (!more) close();
          return more;
        }

        @Override
        public Entry next() {
          Entry entry = it.next();
          pulledBytes.addAndGet(entry.key().length + 1 + entry.value().length);
          return entry;
        }

        @Override
        public void close() {
          if (closed) return;
          closed = true;
          it.close();
          openIterators.decrementAndGet();
        }
      };
    }
  }

  @Test
  void aSlowReaderHoldsTheScanBackAndGetsEveryEntryInOrder(@TempDir Path dir) throws IOException {
    long seed = TestSeed.forTest("ScanFlowTest.slowReader");
    int values = 768; // 48 MiB
    CountingEngine[] counting = new CountingEngine[1];
    try (TestServer server = TestServer.start(dir, TestServer.options(), e -> counting[0] = new CountingEngine(e))) {
      for (int i = 0; i < values; i++) server.engine.put(key(i), value(seed, i));
      try (Socket socket = new Socket()) {
        socket.setReceiveBufferSize(32 * 1024);
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
        socket.setSoTimeout((int) TestServer.TIMEOUT.toMillis());
        socket.getOutputStream().write("GET /v0/entities?start=k HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        AtomicLong received = new AtomicLong();
        long[] maxAhead = {0};
        // Paced, not waiting for anything: a client that takes 32 KiB at a time, with a pause.
        InputStream slow = new InputStream() {
          private final InputStream in = socket.getInputStream();

          @Override
          public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            LockSupport.parkNanos(200_000);
            int n = in.read(b, off, Math.min(len, 32 * 1024));
            if (n > 0) received.addAndGet(n);
            maxAhead[0] = Math.max(maxAhead[0], counting[0].pulledBytes.get() - received.get());
            return n;
          }
        };
        ChunkReader reader = new ChunkReader(new BufferedInputStream(slow, 32 * 1024));
        assertThat(reader.status()).isEqualTo(200);
        for (int i = 0; i < values; i++) {
          byte[] chunk = reader.next();
          assertThat(chunk).as("chunk %d", i).isNotNull();
          byte[] expected = concat(key(i), value(seed, i));
          assertThat(java.util.Arrays.equals(chunk, expected)).as("chunk %d is key %d and its value", i, i).isTrue();
        }
        assertThat(reader.next()).as("the terminating chunk").isNull();
        // The kernel's socket buffers (up to 4 MiB to send, autotuned), Netty's 64 KiB write
        // watermark and one 64 KiB batch: far less than the 48 MiB range.
        assertThat(maxAhead[0]).as("bytes pulled from the engine ahead of the client").isLessThan(12L << 20);
      }
      Await.until("the scan's iterator to be closed", TestServer.TIMEOUT, () -> counting[0].openIterators.get() == 0);
    }
  }

  @Test
  void aClientThatDisconnectsMidScanReleasesTheIteratorAndItsTables(@TempDir Path dir) throws IOException {
    long seed = TestSeed.forTest("ScanFlowTest.disconnect");
    CountingEngine[] counting = new CountingEngine[1];
    try (TestServer server = TestServer.start(dir, TestServer.options(), e -> counting[0] = new CountingEngine(e))) {
      for (int i = 0; i < 256; i++) server.engine.put(key(i), value(seed, i));
      server.engine.compact(); // the range lives in tables
      // Tables the compaction made obsolete go once their last reader lets go.
      Await.until("open tables to settle", TestServer.TIMEOUT, () -> OpenTables.ofThisProcess(dir).equals(OpenTables.onDisk(dir)));
      java.util.Set<Path> firstTables = OpenTables.ofThisProcess(dir);
      assertThat(firstTables).isNotEmpty();
      Socket socket = new Socket();
      socket.setReceiveBufferSize(16 * 1024);
      socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
      socket.getOutputStream().write("GET /v0/entities?start=k HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      ChunkReader reader = new ChunkReader(new BufferedInputStream(socket.getInputStream()));
      assertThat(reader.status()).isEqualTo(200);
      assertThat(reader.next()).isNotNull();
      // Rewrite the range and compact. A scan waiting for its reader holds no iterator (issue 35
      // C: SlowScanPinTest), so the tables of before go while the client is still connected.
      for (int i = 0; i < 256; i++) server.engine.put(key(i), value(seed + 1, i));
      server.engine.compact();
      Await.until("the waiting scan to let its iterator go", TestServer.TIMEOUT, () -> counting[0].openIterators.get() == 0);

      socket.close();
      Await.until("the scan's iterator to be closed", TestServer.TIMEOUT, () -> counting[0].openIterators.get() == 0);
      Await.until("the first tables to be closed and deleted", TestServer.TIMEOUT, () -> {
        java.util.Set<Path> open = OpenTables.ofThisProcess(dir);
        return firstTables.stream().noneMatch(t -> open.contains(t) || Files.exists(t));
      });
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
    byte[] out = java.util.Arrays.copyOf(key, key.length + 1 + value.length);
    out[key.length] = '\n';
    System.arraycopy(value, 0, out, key.length + 1, value.length);
    return out;
  }

  /** Reads a chunked response chunk by chunk as it arrives. */
  static final class ChunkReader {
    private final InputStream in;
    private final int status;

    ChunkReader(InputStream in) throws IOException {
      this.in = in;
      String statusLine = line();
      this.status = Integer.parseInt(statusLine.substring(9, 12));
      while (!line().isEmpty()) {
        // headers: the tests know what they asked for
      }
    }

    int status() {
      return status;
    }

    /** The next chunk, or null after the terminating one; throws if the connection ends first. */
    byte[] next() throws IOException {
      int size = Integer.parseInt(line().trim(), 16);
      if (size == 0) {
        line();
        return null;
      }
      byte[] chunk = in.readNBytes(size);
      if (chunk.length < size) throw new IOException("connection ended mid-chunk");
      line();
      return chunk;
    }

    private String line() throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != '\n') {
        if (b < 0) throw new IOException("connection ended mid-line");
        if (b != '\r') out.write(b);
      }
      return out.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
