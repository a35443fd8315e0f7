package dev.shale.server;

import static dev.shale.server.ClusterScanTest.SECRET;
import static dev.shale.server.ClusterScanTest.scan;
import static dev.shale.server.ClusterScanTest.texts;
import static dev.shale.server.ClusterScanTest.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.server.FakeScanPeer.Await;
import dev.shale.server.FakeScanPeer.Close;
import dev.shale.server.FakeScanPeer.Data;
import dev.shale.server.FakeScanPeer.Failed;
import dev.shale.server.FakeScanPeer.Step;
import dev.shale.testkit.FreePort;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster scan whose peer speaks the internode protocol but sends a bad scan stream (crafted
 * SCAN_DATA, FAILED, a close, silence): before the first entry the client gets 504 naming it,
 * after it a chunked answer without its terminating chunk, never a shorter complete range; and
 * the scan's peer connection is closed either way.
 */
class PeerScanStreamTest {
  @Test
  void aBadStreamBeforeTheFirstEntryIs504NamingIt(@TempDir Path tmp) throws Exception {
    byte[] header = header();
    assertRefused(tmp.resolve("close"), List.of(new Close()), "closed the connection mid-scan");
    assertRefused(tmp.resolve("failed"), List.of(new Failed("disk on fire")), "failed the scan: disk on fire");
    assertRefused(tmp.resolve("garbage"), List.of(new Data(bytes("hello, world!"))), "did not send a scan stream");
    byte[] corrupt = concat(header, record("k1", 5, "one"));
    corrupt[corrupt.length - 1] ^= 1; // the record's last byte: its crc fails
    assertRefused(tmp.resolve("corrupt"), List.of(new Data(corrupt)), "fails its crc");
    // Part of a header, then nothing while the merge waits for it.
    CountDownLatch never = new CountDownLatch(1);
    assertRefused(tmp.resolve("stalled"), List.of(new Data(bytes("hello")), new Await(never)), "sent nothing for 1000 ms mid-scan");
    never.countDown();
  }

  @Test
  void aPeerThatNeverAnswersIsUnreachableAfterTheTimeout(@TempDir Path tmp) throws Exception {
    // A black hole: accepts the connection, never says a word of the handshake.
    try (java.net.ServerSocket hole = new java.net.ServerSocket(0, 16, java.net.InetAddress.getLoopbackAddress());
        ClusterScanTest.Nodes nodes = ClusterScanTest.Nodes.start(tmp, List.of(FreePort.find(), hole.getLocalPort()), 1, 500)) {
      write(nodes.get(0), "k1", 10, "one");
      RawConnection.Chunked refused = scan(nodes.get(0), "start=k&scope=cluster");
      assertThat(refused.status()).isEqualTo(504);
      assertThat(reason(refused)).contains("did not answer the scan within 500 ms");
      assertThat(texts(scan(nodes.get(0), "start=k&scope=cluster&ack=1"))).as("1/2 tolerates it").containsExactly("k1\none");
    }
  }

  @Test
  void aBadStreamAfterTheFirstEntryCutsTheAnswer(@TempDir Path tmp) throws Exception {
    byte[] corrupt = record("k2", 5, "two");
    corrupt[corrupt.length - 1] ^= 1;
    assertCut(tmp.resolve("corrupt"), new Data(corrupt));
    assertCut(tmp.resolve("close"), new Close());
    assertCut(tmp.resolve("failed"), new Failed("disk on fire"));
    assertCut(tmp.resolve("miscounted"), new Data(end(3))); // an end frame that claims records never sent
    assertCut(tmp.resolve("after-end"), new Data(concat(end(1), bytes("more")))); // bytes after the end
  }

  @Test
  void theScansConnectionIsClosedOnceTheScanEnds(@TempDir Path tmp) throws Exception {
    List<String> urls = urls();
    List<Step> whole = List.of(new Data(concat(header(), record("k1", 5, "one"), record("k3", 5, "three"), end(2))));
    try (FakeScanPeer peer = new FakeScanPeer(urls, 1, SECRET, whole);
        ClusterScanTest.Nodes nodes = ClusterScanTest.Nodes.start(tmp, ports(urls), 1, 5_000)) {
      write(nodes.get(0), "k2", 10, "two");
      for (int i = 0; i < 5; i++) {
        assertThat(texts(scan(nodes.get(0), "start=k&scope=cluster"))).containsExactly("k1\none", "k2\ntwo", "k3\nthree");
        awaitClosed(peer);
      }
    }
  }

  private static void assertRefused(Path tmp, List<Step> script, String reason) throws Exception {
    List<String> urls = urls();
    try (FakeScanPeer peer = new FakeScanPeer(urls, 1, SECRET, script);
        ClusterScanTest.Nodes nodes = ClusterScanTest.Nodes.start(tmp, ports(urls), 1, 1_000)) {
      write(nodes.get(0), "k1", 10, "one");
      RawConnection.Chunked answer = scan(nodes.get(0), "start=k&scope=cluster");
      assertThat(answer.status()).as(reason).isEqualTo(504);
      assertThat(reason(answer)).contains(reason);
      awaitClosed(peer);
    }
  }

  /** The peer sends a good header and k1, waits for the client to get k1, then {@code bad}. */
  private static void assertCut(Path tmp, Step bad) throws Exception {
    List<String> urls = urls();
    CountDownLatch firstEntryTaken = new CountDownLatch(1);
    List<Step> script = List.of(new Data(concat(header(), record("k1", 5, "one"))), new Await(firstEntryTaken), bad);
    try (FakeScanPeer peer = new FakeScanPeer(urls, 1, SECRET, script);
        ClusterScanTest.Nodes nodes = ClusterScanTest.Nodes.start(tmp, ports(urls), 1, 5_000)) {
      for (String key : List.of("k1", "k2", "k3")) write(nodes.get(0), key, 10, key + "-value");
      try (RawConnection c = nodes.get(0).server().connect()) {
        c.send("GET /v0/entities?start=k&scope=cluster HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        ScanFlowTest.ChunkReader reader = new ScanFlowTest.ChunkReader(c.input());
        assertThat(reader.status()).isEqualTo(200);
        assertThat(new String(reader.next(), StandardCharsets.UTF_8)).isEqualTo("k1\nk1-value");
        firstEntryTaken.countDown();
        List<String> more = new ArrayList<>();
        boolean cut = false;
        try {
          byte[] chunk;
          while ((chunk = reader.next()) != null) more.add(new String(chunk, StandardCharsets.UTF_8));
        } catch (IOException e) {
          cut = true;
        }
        assertThat(cut).as("%s: the answer ends without its terminating chunk (after %s)", bad, more).isTrue();
        assertThat(c.closedByServer()).isTrue();
      }
      awaitClosed(peer);
    }
  }

  private static void awaitClosed(FakeScanPeer peer) {
    dev.shale.testkit.Await.until("the scan's peer connection to be closed", TestServer.TIMEOUT, () -> peer.openScanConnections.get() == 0);
  }

  private static List<String> urls() {
    return List.of("http://127.0.0.1:" + FreePort.find(), "http://127.0.0.1:" + FreePort.find());
  }

  private static List<Integer> ports(List<String> urls) {
    return urls.stream().map(u -> Integer.parseInt(u.substring(u.lastIndexOf(':') + 1))).toList();
  }

  private static String reason(RawConnection.Chunked answer) {
    return new String(answer.chunks().getFirst(), StandardCharsets.UTF_8);
  }

  // The internal scan stream, byte by byte (docs/format.md, "Internal scan stream").

  private static byte[] header() {
    return ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putLong(0x4E4353454C414853L).putInt(1).array();
  }

  private static byte[] record(String key, long version, String value) {
    byte[] k = bytes(key);
    byte[] v = bytes(value);
    ByteBuffer payload = ByteBuffer.allocate(17 + k.length + v.length).order(ByteOrder.LITTLE_ENDIAN);
    payload.put((byte) 1).putLong(version).putInt(k.length).putInt(v.length).put(k).put(v);
    return frame(payload.array());
  }

  private static byte[] end(long records) {
    return frame(ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0).putLong(records).array());
  }

  private static byte[] frame(byte[] payload) {
    ByteBuffer length = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(payload.length);
    CRC32C crc = new CRC32C();
    crc.update(length.array());
    crc.update(payload);
    ByteBuffer frame = ByteBuffer.allocate(8 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
    return frame.putInt((int) crc.getValue()).put(length.array()).put(payload).array();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) out.writeBytes(part);
    return out.toByteArray();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
