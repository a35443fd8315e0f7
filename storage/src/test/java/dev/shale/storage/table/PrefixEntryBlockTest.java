package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import java.lang.foreign.MemorySegment;
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
    byte[] contents = new Contents().entry(0, "ab", "x", 0).bent(HUGE).tail("c", "y").finish(0);
    assertCorrupt(contents, "shared of 9223372036854775808 does not fit a u32");
  }

  @Test
  void unsharedOf2To63Bytes() {
    byte[] contents = new Contents().entry(0, "ab", "x", 0).varint(1).bent(HUGE).tailAfterUnshared("c", "y").finish(0);
    assertCorrupt(contents, "unshared of 9223372036854775808 does not fit a u32");
  }

  @Test
  void valueLengthOf2To63Bytes() {
    byte[] contents = new Contents().entry(0, "ab", "x", 0).varint(1).varint(1).bent(HUGE).tailAfterValueLength("c", "y").finish(0);
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
    byte[] contents = new Contents().entry(0, "ab", "x", 0).bent(eleven).tail("c", "y").finish(0);
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
    byte[] contents = new Contents().entry(0, "ab", "x", 0).spec().u64(BASE).u32(0).u32(1000).toArray();
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

  /** prefix_contents spelled field by field (a {@link Spec} with the entry shapes these tests bend). */
  private static final class Contents {
    private final Spec spec = new Spec();

    /** A value entry: shared, the key suffix, the value, and its version's delta. */
    Contents entry(int shared, String suffix, String value, long versionDelta) {
      spec.varint(shared).varint(suffix.length()).varint(value.length()).u8(TableFormat.TYPE_VALUE)
          .zigzag(versionDelta).raw(suffix).raw(value);
      return this;
    }

    /** After a bent shared field: unshared, value_length, type, delta 0, suffix, value. */
    Contents tail(String suffix, String value) {
      spec.varint(suffix.length());
      return tailAfterUnshared(suffix, value);
    }

    /** After a bent unshared field: value_length, type, delta 0, suffix, value. */
    Contents tailAfterUnshared(String suffix, String value) {
      spec.varint(value.length());
      return tailAfterValueLength(suffix, value);
    }

    /** After a bent value_length field: type, delta 0, suffix, value. */
    Contents tailAfterValueLength(String suffix, String value) {
      spec.u8(TableFormat.TYPE_VALUE).varint(0).raw(suffix).raw(value);
      return this;
    }

    /** Bytes in place of a field, as damage would leave them. */
    Contents bent(int... bytes) {
      spec.raw(bytes);
      return this;
    }

    Contents varint(long v) {
      spec.varint(v);
      return this;
    }

    /** The bytes so far, to go on spelling by hand. */
    Spec spec() {
      return spec;
    }

    /** base_version, then the restart offsets and their count. */
    byte[] finish(int... restarts) {
      spec.u64(BASE);
      for (int r : restarts) spec.u32(r);
      return spec.u32(restarts.length).toArray();
    }

    int size() {
      return spec.size();
    }
  }
}
