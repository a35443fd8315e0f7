package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.io.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * The contents of one block of a table ({@code contents(E)} in docs/format.md, "Table"), already
 * checked against their crc (and decompressed) by {@link StoredBlock}, and read in place: keys
 * are compared against the block's bytes without copying them.
 *
 * <p>Both item kinds start with {@code key_length:u32} and carry the key after a fixed header
 * ({@code headerBytes}: 17 for a data entry, 16 for an index entry); this class knows only that
 * much. Every offset and length it hands out has been checked to lie inside the block's items, so
 * garbage that slipped past the crc becomes a CorruptionException, never a read out of bounds.
 * Immutable and thread safe.
 */
final class BlockReader {
  private final MemorySegment block;
  private final Path path;
  private final long fileOffset;
  private final int headerBytes;
  private final int count;
  // Items occupy [0, itemsEnd); the u32 offsets array starts at itemsEnd.
  private final long itemsEnd;

  private BlockReader(MemorySegment block, Path path, long fileOffset, int headerBytes, int count) {
    this.block = block;
    this.path = path;
    this.fileOffset = fileOffset;
    this.headerBytes = headerBytes;
    this.count = count;
    this.itemsEnd = block.byteSize() - TableFormat.COUNT_BYTES - 4L * count;
  }

  /**
   * A reader of {@code contents}, a block's checked contents wherever they lie (a block read
   * into native memory, a read-ahead window, a decompressed buffer), after checking that its count fits; {@code fileOffset}, where
   * the block starts in the file, names it in corruption reports.
   */
  static BlockReader open(MemorySegment contents, long fileOffset, int headerBytes, Path path) {
    long length = contents.byteSize();
    if (length < TableFormat.COUNT_BYTES + 4 + headerBytes) {
      throw TableCorruption.at(path, fileOffset, "block contents of " + length + " bytes are too short");
    }
    long count = Integer.toUnsignedLong(contents.get(U32, length - TableFormat.COUNT_BYTES));
    long maxCount = (length - TableFormat.COUNT_BYTES) / (4L + headerBytes);
    if (count < 1 || count > maxCount) {
      throw TableCorruption.at(path, fileOffset,
          "block count " + count + " is implausible for " + length + " bytes");
    }
    return new BlockReader(contents, path, fileOffset, headerBytes, (int) count);
  }

  int count() {
    return count;
  }

  /** The block's bytes; item fields are read at {@link #itemOffset} + their position. */
  MemorySegment segment() {
    return block;
  }

  /** The offset of item {@code i} in the block, checked to leave room for its header and key. */
  long itemOffset(int i) {
    long offset = Integer.toUnsignedLong(block.get(U32, itemsEnd + 4L * i));
    if (offset > itemsEnd - headerBytes) {
      throw corrupt("item " + i + " offset " + offset + " runs past the items");
    }
    long keyLength = Integer.toUnsignedLong(block.get(U32, offset));
    if (keyLength > itemsEnd - offset - headerBytes) {
      throw corrupt("item " + i + " key of " + keyLength + " bytes runs past the items");
    }
    return offset;
  }

  /** The offset of item {@code i}'s value (or trailing data) of {@code length} bytes, checked. */
  long checkedTail(int i, long itemOffset, long length) {
    long tail = itemOffset + headerBytes + keyLength(itemOffset);
    if (length < 0 || length > itemsEnd - tail) {
      throw corrupt("item " + i + " value of " + length + " bytes runs past the items");
    }
    return tail;
  }

  long keyLength(long itemOffset) {
    return Integer.toUnsignedLong(block.get(U32, itemOffset));
  }

  /** Item {@code i}'s key, copied. */
  byte[] keyAt(int i) {
    long offset = itemOffset(i);
    return SegmentBytes.copyOf(block, offset + headerBytes, keyLength(offset));
  }

  /** The index of the first item whose key is {@code >= key}, or {@link #count} if none is. */
  int seek(byte[] key) {
    MemorySegment probe = MemorySegment.ofArray(key);
    int low = 0;
    int high = count; // Invariant: items below low are < key; items at or above high are >= key.
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (compareKeyAt(mid, probe) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Whether item {@code i}'s key equals {@code key}. */
  boolean keyEquals(int i, byte[] key) {
    return compareKeyAt(i, MemorySegment.ofArray(key)) == 0;
  }

  /** Whether item {@code i}'s key is strictly greater than item {@code i - 1}'s. */
  boolean keyIncreasesAt(int i) {
    long previous = itemOffset(i - 1);
    long current = itemOffset(i);
    long previousKey = previous + headerBytes;
    long currentKey = current + headerBytes;
    return compare(block, previousKey, keyLength(previous), block, currentKey, keyLength(current)) < 0;
  }

  /**
   * Item {@code i}'s key compared with {@code key} (a segment over a key array) as unsigned bytes,
   * shorter first on a tie, in place: nothing is copied.
   */
  int compareKeyAt(int i, MemorySegment key) {
    long offset = itemOffset(i);
    return compare(block, offset + headerBytes, keyLength(offset), key, 0, key.byteSize());
  }

  /**
   * The {@code length} bytes at {@code offset} (a range {@link #checkedTail} vouched for)
   * compared with {@code key} (a segment over a key array), in place.
   */
  int compareAt(long offset, long length, MemorySegment key) {
    return compare(block, offset, length, key, 0, key.byteSize());
  }

  /** The ranges {@code [a, a + aLength)} and {@code [b, b + bLength)} of the block compared, in place. */
  int compareRanges(long a, long aLength, long b, long bLength) {
    return compare(block, a, aLength, block, b, bLength);
  }

  /** Compares two byte ranges in place the way Keys.ORDER compares arrays. */
  private static int compare(
      MemorySegment a, long aStart, long aLength, MemorySegment b, long bStart, long bLength) {
    long mismatch = MemorySegment.mismatch(a, aStart, aStart + aLength, b, bStart, bStart + bLength);
    if (mismatch < 0) return 0;
    if (mismatch == aLength) return -1;
    if (mismatch == bLength) return 1;
    return Integer.compare(
        Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, aStart + mismatch)),
        Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bStart + mismatch)));
  }

  /** The exception (logged) for bad bytes of this block. */
  CorruptionException corrupt(String what) {
    return TableCorruption.at(path, fileOffset, "block of " + block.byteSize() + " bytes: " + what);
  }
}
