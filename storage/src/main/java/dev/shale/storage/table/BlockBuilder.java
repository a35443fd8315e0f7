package dev.shale.storage.table;

import dev.shale.storage.Entry;
import java.io.IOException;
import java.util.Arrays;

/**
 * Streams one block at a time (docs/format.md, "Table", {@code block(E)}) to a {@link
 * TableOutput}: its items as they are added, then, on {@link #finish}, the items' offsets, their
 * count and the crc32c of everything before it. Not thread safe; reusable block after block.
 */
final class BlockBuilder {
  private final TableOutput out;
  private long blockOffset;
  // Offsets of the items of the open block from its start, as u32 bit patterns.
  private int[] itemOffsets = new int[256];
  private int count;

  BlockBuilder(TableOutput out) {
    this.out = out;
  }

  /** Appends a data block {@code entry}: key_length value_length version type key [expires_at] value. */
  void addEntry(Entry entry) throws IOException {
    startItem();
    byte[] value = entry.value();
    int expiryBytes = entry.expires() ? TableFormat.EXPIRY_BYTES : 0;
    out.putU32(entry.key().length);
    out.putU32(value == null ? 0 : expiryBytes + value.length);
    out.putLong(entry.version());
    out.putByte(value == null ? TableFormat.TYPE_TOMBSTONE
        : entry.expires() ? TableFormat.TYPE_EXPIRING_VALUE : TableFormat.TYPE_VALUE);
    out.putBytes(entry.key());
    if (entry.expires()) out.putLong(entry.expiresAtMillis());
    if (value != null) out.putBytes(value);
  }

  /** Appends an {@code index_entry}: key_length block_offset block_length key. */
  void addIndexEntry(byte[] lastKey, BlockHandle block) throws IOException {
    startItem();
    out.putU32(lastKey.length);
    out.putLong(block.offset());
    out.putU32(block.length());
    out.putBytes(lastKey);
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** The bytes the open block would take if finished now, trailer included. */
  long sizeBytes() {
    return count == 0 ? 0 : out.position() - blockOffset + 4L * count + TableFormat.BLOCK_TRAILER_BYTES;
  }

  /** Appends the offsets, count and crc of the open block, and returns where it went. */
  BlockHandle finish() throws IOException {
    if (count == 0) throw new IllegalStateException("a block holds at least one item");
    for (int i = 0; i < count; i++) out.putInt(itemOffsets[i]);
    out.putInt(count);
    out.putInt(out.checksum());
    BlockHandle handle = new BlockHandle(blockOffset, out.position() - blockOffset);
    if (handle.length() > TableFormat.U32_MAX) {
      throw new IllegalStateException("block of " + handle.length() + " bytes exceeds the u32 block_length");
    }
    count = 0;
    return handle;
  }

  private void startItem() {
    if (count == 0) {
      blockOffset = out.position();
      out.startChecksum();
    }
    long itemOffset = out.position() - blockOffset;
    if (itemOffset > TableFormat.U32_MAX) {
      throw new IllegalStateException("block exceeds the u32 item offsets");
    }
    if (count == itemOffsets.length) itemOffsets = Arrays.copyOf(itemOffsets, count * 2);
    itemOffsets[count++] = (int) itemOffset;
  }
}
