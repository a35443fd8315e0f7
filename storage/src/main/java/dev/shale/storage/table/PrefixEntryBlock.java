package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;
import static dev.shale.storage.table.TableFormat.U64;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.io.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A data block of format_version 3 or 4: {@code prefix_contents} (docs/format.md, "Data blocks of
 * format_version 3 and 4"), each entry's key and version coded against the entry before it, with a
 * restart point every few entries where decoding can begin. A seek binary-searches the restart
 * points, then decodes forward, as LevelDB's blocks do.
 *
 * <p>Every length read from the block is checked against the bytes that hold the entries before
 * it is used, so garbage that slipped past the crc becomes a CorruptionException, never a read out
 * of bounds or a key built from another entry's bytes. Immutable and thread safe; each cursor is
 * one thread's.
 */
final class PrefixEntryBlock implements DataBlock {
  private final MemorySegment block;
  private final Path path;
  private final long fileOffset;
  // Entries occupy [0, entriesEnd); base_version:u64 follows them, then the restart offsets.
  private final long entriesEnd;
  private final long baseVersion;
  private final long restartsStart;
  private final int restartCount;

  private PrefixEntryBlock(MemorySegment block, Path path, long fileOffset, int restartCount) {
    this.block = block;
    this.path = path;
    this.fileOffset = fileOffset;
    this.restartCount = restartCount;
    this.restartsStart = block.byteSize() - TableFormat.COUNT_BYTES - 4L * restartCount;
    this.entriesEnd = restartsStart - TableFormat.BASE_VERSION_BYTES;
    this.baseVersion = block.get(U64, entriesEnd);
  }

  /** The data block whose checked contents are {@code contents} (StoredBlock), stored at {@code fileOffset}. */
  static PrefixEntryBlock open(MemorySegment contents, long fileOffset, Path path) {
    long length = contents.byteSize();
    long fixedBytes = TableFormat.BASE_VERSION_BYTES + TableFormat.COUNT_BYTES;
    if (length < fixedBytes + 4 + TableFormat.MIN_PREFIX_ENTRY_BYTES) {
      throw TableCorruption.at(path, fileOffset, "block contents of " + length + " bytes are too short");
    }
    long restartCount = Integer.toUnsignedLong(contents.get(U32, length - TableFormat.COUNT_BYTES));
    // Each restart point is an entry of its own, so each takes at least its offset and an entry.
    long maxRestarts = (length - fixedBytes) / (4 + TableFormat.MIN_PREFIX_ENTRY_BYTES);
    if (restartCount < 1 || restartCount > maxRestarts) {
      throw TableCorruption.at(path, fileOffset,
          "block restart count " + restartCount + " is implausible for " + length + " bytes");
    }
    return new PrefixEntryBlock(contents, path, fileOffset, (int) restartCount);
  }

  @Override
  public @Nullable FoundRecord find(byte[] key) {
    PrefixCursor cursor = seek(key);
    return cursor.valid() && cursor.compareKey(key) == 0 ? cursor.record() : null;
  }

  @Override
  public PrefixCursor seek(byte @Nullable [] key) {
    PrefixCursor cursor = new PrefixCursor();
    if (key == null) {
      cursor.decodeRestart(0);
      return cursor;
    }
    // Invariant: restart points below low have keys < key, those above high keys >= key; low's
    // key is < key unless low is 0, the one place a seek can start with nothing before it.
    int low = 0;
    int high = restartCount - 1;
    int decoded = -1; // the restart point the cursor is at, if any
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      cursor.decodeRestart(mid);
      decoded = mid;
      if (cursor.compareKey(key) < 0) low = mid;
      else high = mid - 1;
    }
    if (decoded != low) cursor.decodeRestart(low);
    while (cursor.valid() && cursor.compareKey(key) < 0) cursor.next();
    return cursor;
  }

  @Override
  public CorruptionException corruptEntry(long entry, String what) {
    return TableCorruption.at(path, fileOffset,
        "block of " + block.byteSize() + " bytes: entry at offset " + entry + ": " + what);
  }

  private long restartOffset(int restart) {
    long offset = Integer.toUnsignedLong(block.get(U32, restartsStart + 4L * restart));
    if (offset >= entriesEnd) {
      throw TableCorruption.at(path, fileOffset, "block restart " + restart + " offset " + offset + " runs past the entries");
    }
    return offset;
  }

  /**
   * The decoded entry at a position: its key rebuilt in a buffer of the cursor's own, its value
   * left in the block. {@code prefix_entry := shared:varint unshared:varint value_length:varint
   * type:u8 version_delta:varint key_suffix value}.
   */
  final class PrefixCursor implements Cursor {
    private byte[] key = new byte[32];
    private int keyLength;
    private long version;
    private byte type;
    private long entryOffset;
    private long valueOffset;
    private long valueLength;
    private long position; // where the decoder reads next
    private boolean valid;

    @Override
    public boolean valid() {
      return valid;
    }

    @Override
    public void next() {
      long nextOffset = valueOffset + valueLength;
      if (nextOffset == entriesEnd) valid = false;
      else decode(nextOffset, false);
    }

    @Override
    public int compareKey(byte[] other) {
      return Arrays.compareUnsigned(key, 0, keyLength, other, 0, other.length);
    }

    @Override
    public byte[] key() {
      return Arrays.copyOf(key, keyLength);
    }

    @Override
    public Entry entry(byte[] copiedKey) {
      if (type == TableFormat.TYPE_VALUE && valueLength <= MAX_VALUE_BYTES) {
        // The common case of a scan, without the record's slice of the block.
        return new Entry(copiedKey, version, SegmentBytes.copyOf(block, valueOffset, valueLength));
      }
      return record().copy(copiedKey);
    }

    @Override
    public FoundRecord record() {
      return DataBlock.record(PrefixEntryBlock.this, entryOffset, block, type, version, valueOffset, valueLength);
    }

    void decodeRestart(int restart) {
      decode(restartOffset(restart), true);
    }

    private void decode(long offset, boolean restart) {
      entryOffset = offset;
      position = offset;
      long shared = readU32Varint("shared");
      long unshared = readU32Varint("unshared");
      long length = readU32Varint("value_length");
      if (position >= entriesEnd) throw corruptEntry(offset, "runs past the entries");
      byte entryType = block.get(ValueLayout.JAVA_BYTE, position++);
      long versionDelta = readVarint();
      if (restart && shared != 0) throw corruptEntry(offset, "a restart point shares " + shared + " key bytes");
      if (shared > keyLength) {
        throw corruptEntry(offset, "shares " + shared + " key bytes with a key of " + keyLength);
      }
      if (unshared > entriesEnd - position || shared + unshared > Integer.MAX_VALUE - 8) {
        throw corruptEntry(offset, "key suffix of " + unshared + " bytes runs past the entries");
      }
      int newLength = (int) (shared + unshared);
      if (newLength > key.length) key = Arrays.copyOf(key, Math.max(newLength, 2 * key.length));
      MemorySegment.copy(block, ValueLayout.JAVA_BYTE, position, key, (int) shared, (int) unshared);
      keyLength = newLength;
      position += unshared;
      if (length > entriesEnd - position) {
        throw corruptEntry(offset, "value of " + length + " bytes runs past the entries");
      }
      // An entry that shares no key bytes with the one before is coded against base_version.
      version = (shared == 0 ? baseVersion : version) + ((versionDelta >>> 1) ^ -(versionDelta & 1));
      type = entryType;
      valueOffset = position;
      valueLength = length;
      valid = true;
    }

    /**
     * The varint of a length at position, checked to fit the u32 the format allows (so that no
     * garbage length is negative as a long), position moved past it.
     */
    private long readU32Varint(String field) {
      long value = readVarint();
      if (value < 0 || value > TableFormat.U32_MAX) {
        throw corruptEntry(entryOffset, field + " of " + Long.toUnsignedString(value) + " does not fit a u32");
      }
      return value;
    }

    /** The unsigned LEB128 varint at position, position moved past it. */
    private long readVarint() {
      if (position < entriesEnd) {
        byte first = block.get(ValueLayout.JAVA_BYTE, position);
        if (first >= 0) { // one byte, as lengths below 128 are: the common case
          position++;
          return first;
        }
      }
      return readLongVarint();
    }

    private long readLongVarint() {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (position >= entriesEnd) throw corruptEntry(entryOffset, "a varint runs past the entries");
        byte b = block.get(ValueLayout.JAVA_BYTE, position++);
        value |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          if (shift == 63 && b > 1) throw corruptEntry(entryOffset, "a varint overflows 64 bits");
          return value;
        }
      }
      throw corruptEntry(entryOffset, "a varint is longer than 10 bytes");
    }
  }
}
