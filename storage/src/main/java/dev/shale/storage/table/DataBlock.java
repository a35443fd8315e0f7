package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;
import static dev.shale.storage.table.TableFormat.U64;

import dev.shale.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A data block of a table, over contents already checked against their crc (and decompressed) by
 * {@link StoredBlock}: its {@code entry} items (docs/format.md, "Table") decoded on demand.
 * Immutable and thread safe.
 */
final class DataBlock {
  // The largest array the JVM allocates; a longer value is garbage that slipped past the crc.
  private static final long MAX_VALUE_BYTES = Integer.MAX_VALUE - 8;

  private final BlockReader reader;

  private DataBlock(BlockReader reader) {
    this.reader = reader;
  }

  /** The data block whose checked contents are {@code contents} (StoredBlock), stored at {@code fileOffset}. */
  static DataBlock open(MemorySegment contents, long fileOffset, Path path) {
    return new DataBlock(BlockReader.open(contents, fileOffset, TableFormat.ENTRY_HEADER_BYTES, path));
  }

  int count() {
    return reader.count();
  }

  /**
   * The record of {@code key} in this block, or null: its value a view of the block's checked
   * contents (the mapping, or a decompressed array), valid while the table stays open.
   */
  @Nullable FoundRecord find(byte[] key) {
    int i = reader.seek(key);
    if (i == reader.count() || !reader.keyEquals(i, key)) return null;
    return decode(i);
  }

  /** The index of the first entry whose key is {@code >= key}, or {@link #count} if none is. */
  int seek(byte[] key) {
    return reader.seek(key);
  }

  /** Entry {@code i}'s key compared with {@code key} (a segment over a key array), in place. */
  int compareKeyAt(int i, MemorySegment key) {
    return reader.compareKeyAt(i, key);
  }

  /** Entry {@code i}, its key and value copied out of the file. */
  Entry entryAt(int i) {
    return decode(i).copy(reader.keyAt(i));
  }

  /** entry := key_length:u32 value_length:u32 version:u64 type:u8 key value. */
  private FoundRecord decode(int i) {
    MemorySegment block = reader.segment();
    long offset = reader.itemOffset(i);
    long valueLength = Integer.toUnsignedLong(block.get(U32, offset + 4));
    long version = block.get(U64, offset + 8);
    byte type = block.get(ValueLayout.JAVA_BYTE, offset + 16);
    long valueOffset = reader.checkedTail(i, offset, valueLength);
    return switch (type) {
      case TableFormat.TYPE_TOMBSTONE -> {
        if (valueLength != 0) {
          throw reader.corrupt("tombstone " + i + " has a value of " + valueLength + " bytes");
        }
        yield new FoundRecord(version, null);
      }
      case TableFormat.TYPE_VALUE -> {
        if (valueLength > MAX_VALUE_BYTES) {
          throw reader.corrupt("entry " + i + " value of " + valueLength + " bytes is implausible");
        }
        yield new FoundRecord(version, block.asSlice(valueOffset, valueLength));
      }
      case TableFormat.TYPE_EXPIRING_VALUE -> {
        if (valueLength < TableFormat.EXPIRY_BYTES || valueLength > MAX_VALUE_BYTES + TableFormat.EXPIRY_BYTES) {
          throw reader.corrupt("expiring entry " + i + " value of " + valueLength + " bytes is implausible");
        }
        long expiresAtMillis = block.get(U64, valueOffset);
        if (expiresAtMillis <= 0) throw reader.corrupt("expiring entry " + i + " has expiry " + expiresAtMillis);
        yield new FoundRecord(version, block.asSlice(valueOffset + TableFormat.EXPIRY_BYTES,
            valueLength - TableFormat.EXPIRY_BYTES), expiresAtMillis);
      }
      default -> throw reader.corrupt("entry " + i + " has unknown record type " + type);
    };
  }
}
