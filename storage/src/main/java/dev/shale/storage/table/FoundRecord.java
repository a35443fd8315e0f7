package dev.shale.storage.table;

import dev.shale.storage.Entry;
import dev.shale.storage.io.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.jspecify.annotations.Nullable;

/**
 * A record found where it lies, in a table block's memory or a memtable's: its version, and its
 * value as a view of that memory (null for a tombstone). Nothing is copied until {@link #copy}.
 *
 * <p>Lifetime: the view is valid only while the block or memtable holding it is held; the reader
 * holds the block (through its {@link BlockPins}) or the memtable (through its read view) for as
 * long as it uses the record.
 *
 * @param version the record's version
 * @param value the value in place, or null for a tombstone
 * @param expiresAtMillis when the value expires ({@link Entry#NEVER}: it does not)
 */
public record FoundRecord(long version, @Nullable MemorySegment value, long expiresAtMillis) {

  /** A record that never expires. */
  public FoundRecord(long version, @Nullable MemorySegment value) {
    this(version, value, Entry.NEVER);
  }

  /** Whether this is an expiring value whose expiry has come at wall-clock time {@code nowMillis}. */
  public boolean expiredAt(long nowMillis) {
    return expiresAtMillis != Entry.NEVER && nowMillis >= expiresAtMillis;
  }

  public boolean isTombstone() {
    return value == null;
  }

  /** The value's length; 0 for a tombstone. */
  public long valueBytes() {
    return value == null ? 0 : value.byteSize();
  }

  /** The record as an {@link Entry} of {@code key}, its value copied out to the heap. */
  public Entry copy(byte[] key) {
    return new Entry(key, version, value == null ? null : SegmentBytes.copyOf(value), expiresAtMillis);
  }

  /**
   * Of two records of the same key, the one {@link Entry#newer} would pick of their copies
   * (docs/format.md, "Conventions"): the higher version; on equal versions a tombstone, then the
   * greater value bytes, compared in place.
   */
  public static FoundRecord newer(FoundRecord a, FoundRecord b) {
    if (a.version != b.version) return a.version > b.version ? a : b;
    if (a.value == null) return a;
    if (b.value == null) return b;
    int byValue = compareUnsigned(a.value, b.value);
    if (byValue != 0) return byValue > 0 ? a : b;
    return Entry.laterExpiry(a.expiresAtMillis, b.expiresAtMillis) ? b : a;
  }

  // As Arrays.compareUnsigned(byte[], byte[]): the first differing byte, unsigned, then the length.
  private static int compareUnsigned(MemorySegment a, MemorySegment b) {
    long at = a.mismatch(b);
    if (at == -1) return 0;
    if (at == a.byteSize() || at == b.byteSize()) return Long.compare(a.byteSize(), b.byteSize());
    return Byte.compareUnsigned(a.get(ValueLayout.JAVA_BYTE, at), b.get(ValueLayout.JAVA_BYTE, at));
  }
}
