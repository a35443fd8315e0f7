package dev.shale.storage.table;

import dev.shale.storage.Compression;
import dev.shale.storage.Entry;
import io.airlift.compress.v3.Compressor;
import java.io.IOException;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Builds one block at a time (docs/format.md, "Table") and writes it to a {@link TableOutput}:
 * its items as they are added, then, on {@link #finish}, the items' offsets, their count, and the
 * block's trailer. Not thread safe; reusable block after block.
 *
 * <p>A data block's contents are built in memory ({@link BlockBuffer}) and, when the block closes,
 * compressed with the store's codec if that saves enough, then written as {@code stored codec
 * crc}. A data block that would outgrow {@link TableFormat#MAX_COMPRESSED_CONTENTS_BYTES} (one big
 * value) goes to the file as it is built instead, uncompressed, so no block is ever held whole in
 * memory however big its values. An index block is always streamed, as {@code block(index_entry)}.
 */
final class BlockBuilder {
  private final TableOutput out;
  private final @Nullable BlockBuffer buffer; // null: an index block builder, which streams
  private final byte codec;
  private final @Nullable Compressor compressor; // null: blocks are stored as they are
  private byte[] compressed = new byte[0]; // scratch for a block's compressed form
  // Where the open block's fields go: buffer while a data block is held in memory, else out.
  private FieldSink sink;
  // While the open block goes to out: the file offset where its contents start.
  private long contentsStart;
  // Offsets of the items of the open block from its start, as u32 bit patterns.
  private int[] itemOffsets = new int[256];
  private int count;

  private BlockBuilder(TableOutput out, @Nullable BlockBuffer buffer, Compression compression) {
    this.out = out;
    this.buffer = buffer;
    this.codec = BlockCodec.id(compression);
    this.compressor = BlockCodec.compressor(compression);
    this.sink = buffer != null ? buffer : out;
  }

  /** A builder of data blocks, each compressed with {@code compression} when that pays. */
  static BlockBuilder forData(TableOutput out, Compression compression) {
    return new BlockBuilder(out, new BlockBuffer(), compression);
  }

  /** A builder of the index block. */
  static BlockBuilder forIndex(TableOutput out) {
    return new BlockBuilder(out, null, Compression.NONE);
  }

  /** Appends a data block {@code entry}: key_length value_length version type key [expires_at] value. */
  void addEntry(Entry entry) throws IOException {
    byte[] value = entry.value();
    int expiryBytes = entry.expires() ? TableFormat.EXPIRY_BYTES : 0;
    long valueBytes = value == null ? 0 : expiryBytes + value.length;
    long entryBytes = TableFormat.ENTRY_HEADER_BYTES + entry.key().length + valueBytes;
    if (buffer != null && sink == buffer && contentsBytesWith(entryBytes) > TableFormat.MAX_COMPRESSED_CONTENTS_BYTES) {
      streamFromHere(buffer);
    }
    startItem();
    sink.putU32(entry.key().length);
    sink.putU32(valueBytes);
    sink.putLong(entry.version());
    sink.putByte(value == null ? TableFormat.TYPE_TOMBSTONE
        : entry.expires() ? TableFormat.TYPE_EXPIRING_VALUE : TableFormat.TYPE_VALUE);
    sink.putBytes(entry.key());
    if (entry.expires()) sink.putLong(entry.expiresAtMillis());
    if (value != null) sink.putBytes(value);
  }

  /** Appends an {@code index_entry}: key_length block_offset block_length key. */
  void addIndexEntry(byte[] lastKey, BlockHandle block) throws IOException {
    startItem();
    sink.putU32(lastKey.length);
    sink.putLong(block.offset());
    sink.putU32(block.length());
    sink.putBytes(lastKey);
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** The bytes the open block's contents and trailer would take uncompressed if finished now. */
  long sizeBytes() {
    return count == 0 ? 0 : contentsBytesWith(0) + trailerBytes();
  }

  /** Writes out the open block (offsets, count, trailer; compressed if it pays) and returns where it went. */
  BlockHandle finish() throws IOException {
    if (count == 0) throw new IllegalStateException("a block holds at least one item");
    for (int i = 0; i < count; i++) sink.putInt(itemOffsets[i]);
    sink.putInt(count);
    long blockOffset;
    if (buffer != null && sink == buffer) {
      blockOffset = writeBuffered(buffer);
      buffer.clear();
    } else {
      blockOffset = contentsStart;
      if (buffer != null) out.putByte(TableFormat.CODEC_NONE); // a data block streamed: stored as it is
      out.putInt(out.checksum());
      if (buffer != null) sink = buffer;
    }
    BlockHandle handle = new BlockHandle(blockOffset, out.position() - blockOffset);
    if (handle.length() > TableFormat.U32_MAX) {
      throw new IllegalStateException("block of " + handle.length() + " bytes exceeds the u32 block_length");
    }
    count = 0;
    return handle;
  }

  /**
   * Writes the contents held in {@code contents} as a data block: compressed with codec and
   * contents_length if that saves at least an eighth of them (docs/format.md), else as they are.
   * Returns the block's offset in the file.
   */
  private long writeBuffered(BlockBuffer contents) throws IOException {
    long blockOffset = out.position();
    out.startChecksum();
    int length = (int) contents.position();
    if (compressor != null) {
      int bound = compressor.maxCompressedLength(length);
      if (compressed.length < bound) compressed = new byte[bound];
      int compressedLength = compressor.compress(contents.array(), 0, length, compressed, 0, bound);
      if (TableFormat.CONTENTS_LENGTH_BYTES + (long) compressedLength <= length - length / 8) {
        out.putU32(length);
        out.putBytes(compressed, 0, compressedLength);
        out.putByte(codec);
        out.putInt(out.checksum());
        return blockOffset;
      }
    }
    out.putBytes(contents.array(), 0, length);
    out.putByte(TableFormat.CODEC_NONE);
    out.putInt(out.checksum());
    return blockOffset;
  }

  /** Moves the open data block's contents from memory to the file, where the rest of it will go. */
  private void streamFromHere(BlockBuffer held) throws IOException {
    out.startChecksum();
    contentsStart = out.position();
    out.putBytes(held.array(), 0, (int) held.position());
    held.clear();
    sink = out;
  }

  /** The open block's contents with one more item of {@code moreBytes} (0: none): items, offsets, count. */
  private long contentsBytesWith(long moreBytes) {
    int items = moreBytes > 0 ? count + 1 : count;
    return itemBytes() + moreBytes + 4L * items + TableFormat.COUNT_BYTES;
  }

  /** The bytes of the open block's items so far. */
  private long itemBytes() {
    return sink == out ? out.position() - contentsStart : sink.position();
  }

  private int trailerBytes() {
    return buffer != null ? TableFormat.CODEC_BYTES + TableFormat.CRC_BYTES : TableFormat.CRC_BYTES;
  }

  private void startItem() {
    if (count == 0 && sink == out) {
      contentsStart = out.position();
      out.startChecksum();
    }
    long itemOffset = itemBytes();
    if (itemOffset > TableFormat.U32_MAX) {
      throw new IllegalStateException("block exceeds the u32 item offsets");
    }
    if (count == itemOffsets.length) itemOffsets = Arrays.copyOf(itemOffsets, count * 2);
    itemOffsets[count++] = (int) itemOffset;
  }
}
