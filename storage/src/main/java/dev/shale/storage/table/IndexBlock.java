package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;
import static dev.shale.storage.table.TableFormat.U64;

import dev.shale.storage.io.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A table's index block (docs/format.md, "Index"), read into memory when the table opens: one
 * {@code index_entry} per data block, holding the block's last key and handle, and from
 * format_version 4 its first key.
 *
 * <p>The whole block is checked once, at open: its crc, then that its handles tile the data region
 * from offset 0 to the filter without gap or overlap, that its keys strictly increase and, with
 * first keys, that each block's first key lies above the block before's last key and at most at
 * its own last key. After that a handle it returns is known to lie inside the data region. Immutable
 * and thread safe.
 */
final class IndexBlock {
  private final BlockReader reader;
  private final boolean hasFirstKeys; // format_version 4: first_key_length:u32 ends the header, first_key the item

  private IndexBlock(BlockReader reader, boolean hasFirstKeys) {
    this.reader = reader;
    this.hasFirstKeys = hasFirstKeys;
  }

  /** The index block whose bytes are {@code block} (where they lie, or a copy), checked against {@code footer}. */
  static IndexBlock open(MemorySegment block, Footer footer, Path path) {
    long fileOffset = footer.index().offset();
    MemorySegment contents = StoredBlock.contents(block, fileOffset, path);
    boolean hasFirstKeys = footer.formatVersion() >= TableFormat.FORMAT_VERSION_4;
    int headerBytes = hasFirstKeys ? TableFormat.INDEX_ENTRY_V4_HEADER_BYTES : TableFormat.INDEX_ENTRY_HEADER_BYTES;
    BlockReader reader = BlockReader.open(contents, fileOffset, headerBytes, path);
    IndexBlock index = new IndexBlock(reader, hasFirstKeys);
    index.checkLayout(footer);
    return index;
  }

  int blockCount() {
    return reader.count();
  }

  /**
   * The first data block whose last key is {@code >= key}: the only block that can hold {@code
   * key}. {@link #blockCount} if key is past the table's last key.
   */
  int find(byte[] key) {
    return reader.seek(key);
  }

  /** index_entry := key_length:u32 block_offset:u64 block_length:u32 [first_key_length:u32] key [first_key]. */
  BlockHandle handle(int block) {
    long offset = reader.itemOffset(block);
    MemorySegment segment = reader.segment();
    long blockOffset = segment.get(U64, offset + 4);
    long blockLength = Integer.toUnsignedLong(segment.get(U32, offset + 12));
    return new BlockHandle(blockOffset, blockLength);
  }

  /** Whether the index holds each block's first key (format_version 4). */
  boolean hasFirstKeys() {
    return hasFirstKeys;
  }

  /**
   * Data block {@code block}'s first key compared with {@code key} as Keys.ORDER compares them,
   * in place; only with {@link #hasFirstKeys}. Positive: every key of the block is above {@code key}.
   */
  int compareFirstKey(int block, byte[] key) {
    if (!hasFirstKeys) throw new IllegalStateException("a table of format_version 1 to 3 has no first keys in its index");
    long item = reader.itemOffset(block);
    long length = firstKeyLength(item);
    return reader.compareAt(reader.checkedTail(block, item, length), length, MemorySegment.ofArray(key));
  }

  /** Data block {@code block}'s last key, copied. */
  byte[] lastKey(int block) {
    return reader.keyAt(block);
  }

  /** Data block {@code block}'s first key, copied; only with {@link #hasFirstKeys}. */
  byte[] firstKey(int block) {
    if (!hasFirstKeys) throw new IllegalStateException("a table of format_version 1 to 3 has no first keys in its index");
    long item = reader.itemOffset(block);
    long length = firstKeyLength(item);
    return SegmentBytes.copyOf(reader.segment(), reader.checkedTail(block, item, length), length);
  }

  private long firstKeyLength(long item) {
    return Integer.toUnsignedLong(reader.segment().get(U32, item + TableFormat.INDEX_ENTRY_HEADER_BYTES));
  }

  private void checkLayout(Footer footer) {
    if (blockCount() > footer.entryCount()) {
      throw reader.corrupt(blockCount() + " data blocks for " + footer.entryCount() + " records");
    }
    long expectedOffset = 0;
    for (int i = 0; i < blockCount(); i++) {
      BlockHandle block = handle(i);
      boolean plausibleLength = block.length() >= TableFormat.MIN_DATA_BLOCK_BYTES
          && block.length() <= footer.dataEnd() - expectedOffset;
      if (block.offset() != expectedOffset || !plausibleLength) {
        throw reader.corrupt("index entry " + i + " points at " + block
            + ", not a block after offset " + expectedOffset + " within the data");
      }
      if (i > 0 && !reader.keyIncreasesAt(i)) throw reader.corrupt("index key " + i + " does not increase");
      if (hasFirstKeys) checkFirstKey(i);
      expectedOffset = block.end();
    }
    if (expectedOffset != footer.dataEnd()) {
      throw reader.corrupt(
          "data blocks end at " + expectedOffset + ", not at the filter offset " + footer.dataEnd());
    }
  }

  // A block's keys lie in [first_key, key], above the block before's: what lets a read skip it.
  private void checkFirstKey(int i) {
    long item = reader.itemOffset(i);
    long length = firstKeyLength(item);
    long first = reader.checkedTail(i, item, length);
    long lastKey = item + TableFormat.INDEX_ENTRY_V4_HEADER_BYTES;
    if (reader.compareRanges(first, length, lastKey, reader.keyLength(item)) > 0) {
      throw reader.corrupt("index entry " + i + ": the block's first key is above its last key");
    }
    if (i == 0) return;
    long before = reader.itemOffset(i - 1);
    long beforeKey = before + TableFormat.INDEX_ENTRY_V4_HEADER_BYTES;
    if (reader.compareRanges(beforeKey, reader.keyLength(before), first, length) >= 0) {
      throw reader.corrupt("index entry " + i + ": the block's first key is not above the last key of the block before");
    }
  }
}
