package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Format 3 block contents crafted field by field (docs/format.md, "Data blocks of format_version
 * 3"), as a buggy writer or a crafted file that passed its crc would hold them: every field a
 * reader must distrust is bent, and each bend is a CorruptionException, never another exception
 * nor a record built from the wrong bytes.
 */
class PrefixEntryBlockTest {
  private static final Path FILE = Path.of("000001.sst");
  private static final long BASE = 1000;
  // A varint of 10 bytes whose value is 2^63: negative as a Java long.
  private static final int[] HUGE = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};

  @Test
  void wellFormedContentsRead() {
    byte[] contents = new Contents()
        .entry(0, "ab", "x", 0).entry(1, "c", "yy", 2).entry(1, "d", "z", -3)
        .finish(0);
    PrefixEntryBlock block = PrefixEntryBlock.open(MemorySegment.ofArray(contents), 0, FILE);
    assertThat(readAll(block)).containsExactly(
        new Entry(bytes("ab"), BASE, bytes("x")), new Entry(bytes("ac"), BASE + 2, bytes("yy")),
        new Entry(bytes("ad"), BASE - 1, bytes("z")));
  }

  @Test
  void sharedOf2To63Bytes() {
    byte[] contents = new Contents().entry(0, "ab", "x", 0).raw(HUGE).tail("c", "y").finish(0);
    assertCorrupt(contents, "shared of 9223372036854775808 does not fit a u32");
  }

  @Test
  void unsharedOf2To63Bytes() {
    byte[] contents = new Contents().entry(0, "ab", "x", 0).varint(1).raw(HUGE).varint(1).u8(1).varint(0).raw("c").raw("y").finish(0);
    assertCorrupt(contents, "unshared of 9223372036854775808 does not fit a u32");
  }

  @Test
  void valueLengthOf2To63Bytes() {
    byte[] contents = new Contents().entry(0, "ab", "x", 0).varint(1).varint(1).raw(HUGE).u8(1).varint(0).raw("c").raw("y").finish(0);
    assertCorrupt(contents, "value_length of 9223372036854775808 does not fit a u32");
  }

  @Test
  void sharedLongerThanTheKeyBefore() {
    byte[] contents = new Contents().entry(0, "ab", "x", 0).entry(3, "c", "y", 0).finish(0);
    assertCorrupt(contents, "shares 3 key bytes with a key of 2");
  }

  @Test
  void restartPointThatSharesKeyBytes() {
    Contents c = new Contents().entry(0, "ab", "x", 0);
    int second = c.size();
    byte[] contents = c.entry(1, "c", "y", 0).finish(0, second);
    PrefixEntryBlock block = PrefixEntryBlock.open(MemorySegment.ofArray(contents), 0, FILE);
    assertThatThrownBy(() -> block.find(bytes("ac"))).isInstanceOf(CorruptionException.class).hasMessageContaining("restart point");
  }

  @Test
  void varintOfElevenBytes() {
    int[] eleven = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    byte[] contents = new Contents().entry(0, "ab", "x", 0).raw(eleven).tail("c", "y").finish(0);
    assertCorrupt(contents, "longer than 10 bytes");
  }

  @Test
  void restartOffsetPastTheEntries() {
    byte[] contents = new Contents().entry(0, "ab", "x", 0).entry(1, "c", "y", 0).finish(0, 1 << 20);
    PrefixEntryBlock block = PrefixEntryBlock.open(MemorySegment.ofArray(contents), 0, FILE);
    assertThatThrownBy(() -> block.find(bytes("zz"))).isInstanceOf(CorruptionException.class).hasMessageContaining("runs past the entries");
  }

  @Test
  void restartCountLargerThanTheContentsHold() {
    byte[] contents = new Contents().entry(0, "ab", "x", 0).u64(BASE).u32(0).u32(1000).toArray();
    assertThatThrownBy(() -> PrefixEntryBlock.open(MemorySegment.ofArray(contents), 0, FILE))
        .isInstanceOf(CorruptionException.class).hasMessageContaining("restart count 1000");
  }

  /** Reading every entry of {@code contents} from its start, and seeking past its first, each fail as corruption. */
  private static void assertCorrupt(byte[] contents, String message) {
    PrefixEntryBlock block = PrefixEntryBlock.open(MemorySegment.ofArray(contents), 0, FILE);
    assertThatThrownBy(() -> readAll(block)).isInstanceOf(CorruptionException.class).hasMessageContaining(message);
    assertThatThrownBy(() -> block.find(bytes("zz"))).isInstanceOf(CorruptionException.class).hasMessageContaining(message);
  }

  private static List<Entry> readAll(PrefixEntryBlock block) {
    List<Entry> entries = new ArrayList<>();
    for (DataBlock.Cursor c = block.seek(null); c.valid(); c.next()) entries.add(c.entry());
    return entries;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** prefix_contents spelled field by field; versions are given as their delta. */
  private static final class Contents {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** A value entry: shared, the key suffix, the value, and its version's delta (zigzagged here). */
    Contents entry(int shared, String suffix, String value, long versionDelta) {
      varint(shared).varint(suffix.length()).varint(value.length()).u8(TableFormat.TYPE_VALUE);
      return varint((versionDelta << 1) ^ (versionDelta >> 63)).raw(suffix).raw(value);
    }

    /** The rest of an entry after a bent shared field: unshared, value_length, type, delta 0, suffix, value. */
    Contents tail(String suffix, String value) {
      return varint(suffix.length()).varint(value.length()).u8(TableFormat.TYPE_VALUE).varint(0).raw(suffix).raw(value);
    }

    /** base_version, then the restart offsets and their count. */
    byte[] finish(int... restarts) {
      u64(BASE);
      for (int r : restarts) u32(r);
      return u32(restarts.length).toArray();
    }

    Contents varint(long v) {
      while (Long.compareUnsigned(v, 0x80) >= 0) {
        out.write((int) (v & 0x7F) | 0x80);
        v >>>= 7;
      }
      out.write((int) v);
      return this;
    }

    Contents u8(int v) {
      out.write(v);
      return this;
    }

    Contents u32(int v) {
      out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
      return this;
    }

    Contents u64(long v) {
      out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
      return this;
    }

    Contents raw(String ascii) {
      out.writeBytes(bytes(ascii));
      return this;
    }

    Contents raw(int[] b) {
      for (int x : b) out.write(x);
      return this;
    }

    int size() {
      return out.size();
    }

    byte[] toArray() {
      return out.toByteArray();
    }
  }
}
