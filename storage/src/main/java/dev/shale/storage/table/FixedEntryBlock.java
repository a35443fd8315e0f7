package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;
import static dev.shale.storage.table.TableFormat.U64;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A data block of format_version 1 or 2: {@code contents(entry)}, fixed-width entries each listed
 * in the offsets array (docs/format.md, "Table"), so an entry is found by a binary search over
 * the entries themselves, read in place. Written by builds before format_version 3; read so that
 * their stores keep opening. Immutable and thread safe.
 */
final class FixedEntryBlock implements DataBlock {
  private final BlockReader reader;

  private FixedEntryBlock(BlockReader reader) {
    this.reader = reader;
  }

  /** The data block whose checked contents are {@code contents} (StoredBlock), stored at {@code fileOffset}. */
  static FixedEntryBlock open(MemorySegment contents, long fileOffset, Path path) {
    return new FixedEntryBlock(BlockReader.open(contents, fileOffset, TableFormat.ENTRY_HEADER_BYTES, path));
  }

  @Override
  public @Nullable FoundRecord find(byte[] key) {
    int i = reader.seek(key);
    if (i == reader.count() || !reader.keyEquals(i, key)) return null;
    return decode(i);
  }

  @Override
  public Cursor seek(byte @Nullable [] key) {
    return new IndexCursor(key == null ? 0 : reader.seek(key));
  }

  @Override
  public CorruptionException corruptEntry(long entry, String what) {
    return reader.corrupt("entry " + entry + ": " + what);
  }

  /** entry := key_length:u32 value_length:u32 version:u64 type:u8 key value. */
  private FoundRecord decode(int i) {
    MemorySegment block = reader.segment();
    long offset = reader.itemOffset(i);
    long valueLength = Integer.toUnsignedLong(block.get(U32, offset + 4));
    long version = block.get(U64, offset + 8);
    byte type = block.get(ValueLayout.JAVA_BYTE, offset + 16);
    long valueOffset = reader.checkedTail(i, offset, valueLength);
    return DataBlock.record(this, i, block, type, version, valueOffset, valueLength);
  }

  /** A cursor that is the index of an entry in the offsets array. */
  private final class IndexCursor implements Cursor {
    private int i;

    IndexCursor(int i) {
      this.i = i;
    }

    @Override
    public boolean valid() {
      return i < reader.count();
    }

    @Override
    public void next() {
      i++;
    }

    @Override
    public int compareKey(byte[] key) {
      return reader.compareKeyAt(i, MemorySegment.ofArray(key));
    }

    @Override
    public byte[] key() {
      return reader.keyAt(i);
    }

    @Override
    public Entry entry(byte[] key) {
      return decode(i).copy(key);
    }

    @Override
    public FoundRecord record() {
      return decode(i);
    }
  }
}
