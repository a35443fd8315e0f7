package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A scan whose engine fails: a 500 before the first entry, a cut body after it. */
class ScanFailureTest {
  /** An engine whose scans throw CorruptionException after {@code goodEntries} entries. */
  private static final class FailingEngine extends ForwardingEngine {
    private final int goodEntries;

    FailingEngine(Engine delegate, int goodEntries) {
      super(delegate);
      this.goodEntries = goodEntries;
    }

    @Override
    public EntryIterator scan(byte[] start, byte[] end, boolean includeTombstones) {
      EntryIterator it = super.scan(start, end, includeTombstones);
      return new EntryIterator() {
        private int given;

        @Override
        public boolean hasNext() {
          if (given == goodEntries) throw new CorruptionException(Path.of("000042.sst"), "block at offset 4096 fails its crc");
          return it.hasNext();
        }

        @Override
        public Entry next() {
          if (!hasNext()) throw new NoSuchElementException(); // hasNext() fails at the bad block
          given++;
          return it.next();
        }

        @Override
        public void close() {
          it.close();
        }
      };
    }
  }

  @Test
  void aFailureBeforeTheFirstEntryIsA500NamingIt(@TempDir Path dir) throws IOException {
    try (TestServer server = TestServer.start(dir, TestServer.options(), e -> new FailingEngine(e, 0))) {
      server.engine.put(bytes("a"), bytes("1"));
      try (RawConnection c = server.connect()) {
        c.send("GET /v0/entities?start=a HTTP/1.1\r\nHost: x\r\n\r\nGET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n");
        RawConnection.Chunked scan = c.readChunked();
        assertThat(scan.status()).isEqualTo(500);
        assertThat(new String(scan.chunks().getFirst(), StandardCharsets.UTF_8)).contains("000042.sst", "crc");
        assertThat(c.readChunked().status()).as("the connection goes on").isEqualTo(200);
      }
    }
  }

  @Test
  void aFailureMidScanEndsTheBodyWithoutItsTerminatingChunk(@TempDir Path dir) throws IOException {
    // 16 KiB values: the first 64 KiB batch is 4 entries, and the failure comes in the second.
    try (TestServer server = TestServer.start(dir, TestServer.options(), e -> new FailingEngine(e, 6))) {
      for (int i = 0; i < 10; i++) server.engine.put(bytes("k" + i), new byte[16 * 1024]);
      try (RawConnection c = server.connect()) {
        c.send("GET /v0/entities?start=k HTTP/1.1\r\nHost: x\r\n\r\n");
        RawConnection.Chunked scan = c.readChunked();
        assertThat(scan.status()).isEqualTo(200);
        assertThat(scan.complete()).as("cut: no terminating chunk").isFalse();
        assertThat(scan.chunks()).hasSizeBetween(1, 6);
        assertThat(c.closedByServer()).isTrue();
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
