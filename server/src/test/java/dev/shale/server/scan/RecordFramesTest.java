package dev.shale.server.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Entry;
import dev.shale.storage.Versions;
import dev.shale.testkit.TestSeed;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The internal scan stream's frames (docs/format.md, "Internal scan stream"). */
class RecordFramesTest {

  @Test
  void recordsAndTombstonesSurviveAnySplitOfTheStream() throws Exception {
    Random random = new Random(TestSeed.forTest("RecordFramesTest.split"));
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      byte[] key = ("key-" + (1000 + i)).getBytes(StandardCharsets.UTF_8);
      long version = Versions.of(1_700_000_000_000L + i, random.nextInt(100));
      if (random.nextInt(4) == 0) {
        entries.add(Entry.tombstone(key, version));
      } else {
        byte[] value = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(5000)];
        random.nextBytes(value);
        // A third of the values expire (type 3, expires_at before the value), some of them empty.
        long expiresAt = random.nextInt(3) == 0 ? Versions.physicalMillis(version) + 1 + random.nextInt(100_000) : Entry.NEVER;
        entries.add(new Entry(key, version, value, expiresAt));
      }
    }
    byte[] stream = toBytes(stream(entries));
    RecordFrames.Decoder decoder = new RecordFrames.Decoder("peer");
    List<Entry> decoded = new ArrayList<>();
    for (int at = 0; at < stream.length; ) {
      int n = Math.min(stream.length - at, 1 + random.nextInt(700));
      decoder.feed(Unpooled.wrappedBuffer(stream, at, n));
      at += n;
      for (Entry e = decoder.next(); e != null; e = decoder.next()) decoded.add(e);
    }
    assertThat(decoder.ended()).isTrue();
    assertThat(decoded).isEqualTo(entries);
    decoder.release();
  }

  @Test
  void theHeaderIsTwelveBytesAndATombstoneFrameHasNoValue() {
    byte[] header = toBytes(RecordFrames.header());
    assertThat(new String(header, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("SHALESCN");
    assertThat(header).hasSize(12).endsWith(1, 0, 0, 0);
    byte[] tombstone = toBytes(RecordFrames.record(Entry.tombstone("k".getBytes(StandardCharsets.UTF_8), 7)));
    // crc, length = 17 + 1, type 2, version 7, key_length 1, value_length 0, "k"
    assertThat(tombstone).hasSize(8 + 18);
    assertThat(tombstone[4]).isEqualTo((byte) 18);
    assertThat(tombstone[8]).isEqualTo(RecordFrames.TOMBSTONE);
    assertThat(tombstone[9]).isEqualTo((byte) 7);
    assertThat(tombstone[25]).isEqualTo((byte) 'k');
  }

  @Test
  void anExpiringValueFrameCarriesItsExpiryFirstInItsValueBytes() throws Exception {
    Entry expiring = new Entry("k".getBytes(StandardCharsets.UTF_8), 7, "v".getBytes(StandardCharsets.UTF_8), 0x0193EA60L);
    byte[] frame = toBytes(RecordFrames.record(expiring));
    // crc, length = 17 + 1 + 8 + 1, type 3, version 7, key_length 1, value_length 9, "k", expires_at, "v"
    assertThat(frame).hasSize(8 + 27);
    assertThat(frame[4]).isEqualTo((byte) 27);
    assertThat(frame[8]).isEqualTo(RecordFrames.EXPIRING_VALUE);
    assertThat(frame[21]).isEqualTo((byte) 9);
    assertThat(frame).containsSubsequence((byte) 'k', (byte) 0x60, (byte) 0xEA, (byte) 0x93, (byte) 0x01, (byte) 0, (byte) 0, (byte) 0,
        (byte) 0, (byte) 'v');
    RecordFrames.Decoder decoder = new RecordFrames.Decoder("peer");
    decoder.feed(Unpooled.wrappedBuffer(toBytes(stream(List.of(expiring)))));
    assertThat(decoder.next()).isEqualTo(expiring);
    decoder.release();
  }

  @Test
  void aFlippedBitFailsTheCrcAndAWrongCountFailsTheEnd() {
    byte[] stream = toBytes(stream(List.of(new Entry("a".getBytes(StandardCharsets.UTF_8), 5, new byte[] {1, 2, 3}))));
    byte[] flipped = stream.clone();
    flipped[12 + 8 + 17 + 1] ^= 1; // a value byte
    RecordFrames.Decoder bad = new RecordFrames.Decoder("peer-x");
    bad.feed(Unpooled.wrappedBuffer(flipped));
    assertThatThrownBy(bad::next).hasMessageContaining("peer-x").hasMessageContaining("crc");

    CompositeByteBuf lying = Unpooled.compositeBuffer();
    lying.addComponents(true, RecordFrames.header(), RecordFrames.end(3));
    RecordFrames.Decoder counted = new RecordFrames.Decoder("peer-y");
    counted.feed(lying);
    assertThatThrownBy(counted::next).hasMessageContaining("claiming 3 records after sending 0");

    RecordFrames.Decoder notOurs = new RecordFrames.Decoder("peer-z");
    notOurs.feed(Unpooled.wrappedBuffer("HTTP/1.1 200 OK\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
    assertThatThrownBy(notOurs::next).hasMessageContaining("did not send a scan stream");
  }

  @Test
  void bytesThatComeWithTheEndFrameFailTheStreamAtOnce() {
    // The coordinator reads nothing after the end frame: what arrived with it must be refused
    // while the end frame is read, not by a later call that never comes.
    CompositeByteBuf trailing = Unpooled.compositeBuffer();
    trailing.addComponents(true, stream(List.of()), Unpooled.wrappedBuffer(new byte[] {'x'}));
    RecordFrames.Decoder decoder = new RecordFrames.Decoder("peer-t");
    decoder.feed(trailing);
    assertThatThrownBy(decoder::next).hasMessageContaining("peer-t sent bytes after the end frame");
    decoder.release();
  }

  private static ByteBuf stream(List<Entry> entries) {
    CompositeByteBuf out = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    out.addComponent(true, RecordFrames.header());
    for (Entry e : entries) out.addComponent(true, RecordFrames.record(e));
    out.addComponent(true, RecordFrames.end(entries.size()));
    return out;
  }

  private static byte[] toBytes(ByteBuf buf) {
    byte[] bytes = new byte[buf.readableBytes()];
    buf.readBytes(bytes);
    buf.release();
    return bytes;
  }
}
