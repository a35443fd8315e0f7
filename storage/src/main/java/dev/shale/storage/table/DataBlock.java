package dev.shale.storage.table;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A data block of a table, over contents already checked against their crc (and decompressed) by
 * {@link StoredBlock}, decoded on demand in one of the two entry layouts of docs/format.md,
 * "Table": {@link FixedEntryBlock} (format_version 1 and 2) or {@link PrefixEntryBlock}
 * (format_version 3 and 4). Blocks are immutable and thread safe; their cursors are not.
 */
sealed interface DataBlock permits FixedEntryBlock, PrefixEntryBlock {
  // The largest array the JVM allocates; a longer value is garbage that slipped past the crc.
  long MAX_VALUE_BYTES = Integer.MAX_VALUE - 8;

  /**
   * The data block whose checked contents are {@code contents} (StoredBlock), of a table of
   * {@code formatVersion}, stored at {@code fileOffset} in {@code path} (which name it in
   * corruption reports).
   */
  static DataBlock open(MemorySegment contents, int formatVersion, long fileOffset, Path path) {
    return formatVersion >= TableFormat.FORMAT_VERSION_3
        ? PrefixEntryBlock.open(contents, fileOffset, path)
        : FixedEntryBlock.open(contents, fileOffset, path);
  }

  /**
   * The record of {@code key} in this block, or null: its value a view of the block's checked
   * contents, valid while the caller holds the block.
   */
  @Nullable FoundRecord find(byte[] key);

  /**
   * A cursor at the first entry whose key is {@code >= key} (not {@link Cursor#valid} if no entry
   * is), or at the first entry when {@code key} is null.
   */
  Cursor seek(byte @Nullable [] key);

  /** The exception (logged) for bad bytes of this block's entry {@code entry} (an index or an offset, as the block numbers them). */
  CorruptionException corruptEntry(long entry, String what);

  /** A position among a block's entries, moving forward only. Not thread safe. */
  interface Cursor {
    /** Whether the cursor is at an entry (false once past the last). */
    boolean valid();

    /** Moves to the next entry; valid() is false after the last. */
    void next();

    /** The current entry's key compared with {@code key} as Keys.ORDER compares them. */
    int compareKey(byte[] key);

    /** The current entry, its key and value copied out of the block. */
    default Entry entry() {
      return entry(key());
    }

    /** A copy of the current entry's key. */
    byte[] key();

    /** The current entry named by {@code key} (a copy of its key, {@link #key}), its value copied out. */
    Entry entry(byte[] key);

    /** The current entry, its value a view of the block. */
    FoundRecord record();
  }

  /**
   * The record of an entry of {@code type} and {@code version} whose value bytes ({@code
   * value_length} of them, docs/format.md) start at {@code valueOffset} of {@code bytes}, checked
   * as the record types require; {@code entry} names it to {@code block}'s corruption reports.
   */
  static FoundRecord record(
      DataBlock block, long entry, MemorySegment bytes, byte type, long version, long valueOffset, long valueLength) {
    return switch (type) {
      case TableFormat.TYPE_TOMBSTONE -> {
        if (valueLength != 0) throw block.corruptEntry(entry, "tombstone has a value of " + valueLength + " bytes");
        yield new FoundRecord(version, null);
      }
      case TableFormat.TYPE_VALUE -> {
        if (valueLength > MAX_VALUE_BYTES) {
          throw block.corruptEntry(entry, "value of " + valueLength + " bytes is implausible");
        }
        yield new FoundRecord(version, bytes.asSlice(valueOffset, valueLength));
      }
      case TableFormat.TYPE_EXPIRING_VALUE -> {
        if (valueLength < TableFormat.EXPIRY_BYTES || valueLength > MAX_VALUE_BYTES + TableFormat.EXPIRY_BYTES) {
          throw block.corruptEntry(entry, "expiring value of " + valueLength + " bytes is implausible");
        }
        long expiresAtMillis = bytes.get(TableFormat.U64, valueOffset);
        if (expiresAtMillis <= 0) throw block.corruptEntry(entry, "expiring value has expiry " + expiresAtMillis);
        yield new FoundRecord(version, bytes.asSlice(valueOffset + TableFormat.EXPIRY_BYTES,
            valueLength - TableFormat.EXPIRY_BYTES), expiresAtMillis);
      }
      default -> throw block.corruptEntry(entry, "unknown record type " + type);
    };
  }
}
