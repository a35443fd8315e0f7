package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;
import static dev.shale.storage.table.TableFormat.U64;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A table's index block (docs/format.md, "Index"), read into memory when the table opens: one
 * {@code index_entry} per data block, holding the block's last key and handle.
 *
 * <p>The whole block is checked once, at open: its crc, then that its handles tile the data region
 * from offset 0 to the filter without gap or overlap and that its keys strictly increase. After
 * that a handle it returns is known to lie inside the data region. Immutable and thread safe.
 */
final class IndexBlock {
  private final BlockReader reader;

  private IndexBlock(BlockReader reader) {
    this.reader = reader;
  }

  /** The index block whose bytes are {@code block} (where they lie, or a copy), checked against {@code footer}. */
  static IndexBlock open(MemorySegment block, Footer footer, Path path) {
    long fileOffset = footer.index().offset();
    MemorySegment contents = StoredBlock.contents(block, fileOffset, path);
    BlockReader reader = BlockReader.open(contents, fileOffset, TableFormat.INDEX_ENTRY_HEADER_BYTES, path);
    IndexBlock index = new IndexBlock(reader);
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

  /** index_entry := key_length:u32 block_offset:u64 block_length:u32 key. */
  BlockHandle handle(int block) {
    long offset = reader.itemOffset(block);
    MemorySegment segment = reader.segment();
    long blockOffset = segment.get(U64, offset + 4);
    long blockLength = Integer.toUnsignedLong(segment.get(U32, offset + 12));
    return new BlockHandle(blockOffset, blockLength);
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
      expectedOffset = block.end();
    }
    if (expectedOffset != footer.dataEnd()) {
      throw reader.corrupt(
          "data blocks end at " + expectedOffset + ", not at the filter offset " + footer.dataEnd());
    }
  }
}
