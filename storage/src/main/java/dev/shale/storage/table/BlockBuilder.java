package dev.shale.storage.table;

import dev.shale.storage.Compression;
import dev.shale.storage.Entry;
import io.airlift.compress.v3.Compressor;
import java.io.IOException;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Builds one block at a time (docs/format.md, "Table") and writes it to a {@link TableOutput}:
 * its items as they are added, then, on {@link #finish}, the offsets of its restart points, their
 * count, and the block's trailer. Not thread safe; reusable block after block.
 *
 * <p>A data block is {@code prefix_contents} (format_version 3 and 4): each entry's key and version
 * coded against the entry before, every {@link TableFormat#RESTART_INTERVAL}th entry a restart
 * point coded against nothing but the block's base_version. An index block is {@code
 * contents(index_entry)}, where every item is listed: the same trailer with every item a restart.
 *
 * <p>A data block's contents are built in memory ({@link BlockBuffer}) and, when the block closes,
 * compressed with the store's codec if that saves enough, then written as {@code stored codec
 * crc}. A data block that would outgrow {@link TableFormat#MAX_COMPRESSED_CONTENTS_BYTES} (one big
 * value) goes to the file as it is built instead, uncompressed, so no block is ever held whole in
 * memory however big its values. An index block is always streamed, as {@code block(index_entry)}.
 */
final class BlockBuilder {
  // The most bytes a prefix_entry takes besides its key suffix and value: three varints of a u32
  // or less (5 bytes each), the type, and a version_delta varint of up to 10 bytes.
  private static final int MAX_PREFIX_HEADER_BYTES = 3 * 5 + 1 + 10;

  private final TableOutput out;
  private final @Nullable BlockBuffer buffer; // null: an index block builder, which streams
  private final byte codec;
  private final @Nullable Compressor compressor; // null: blocks are stored as they are
  private byte[] compressed = new byte[0]; // scratch for a block's compressed form
  // Where the open block's fields go: buffer while a data block is held in memory, else out.
  private FieldSink sink;
  // While the open block goes to out: the file offset where its contents start.
  private long contentsStart;
  // Offsets of the restart points of the open block from its start, as u32 bit patterns.
  private int[] restartOffsets = new int[256];
  private int restarts;
  private int items;
  // The open data block's base_version and the entry before: what the next entry is coded against.
  private long baseVersion;
  private byte[] previousKey = new byte[0];
  private long previousVersion;

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

  /**
   * Appends a data block {@code prefix_entry}: shared unshared value_length type version_delta
   * key_suffix [expires_at] value. {@code entry}'s key array is kept until the next entry, and
   * must not change (an Entry's never does).
   */
  void addEntry(Entry entry) throws IOException {
    byte[] key = entry.key();
    byte[] value = entry.value();
    long valueBytes = value == null ? 0 : (entry.expires() ? TableFormat.EXPIRY_BYTES : 0) + (long) value.length;
    boolean restart = items % TableFormat.RESTART_INTERVAL == 0;
    int shared = restart ? 0 : sharedPrefix(previousKey, key);
    int unshared = key.length - shared;
    long entryBytes = MAX_PREFIX_HEADER_BYTES + unshared + valueBytes;
    if (buffer != null && sink == buffer
        && contentsBytesWith(entryBytes, restart) > TableFormat.MAX_COMPRESSED_CONTENTS_BYTES) {
      streamFromHere(buffer);
    }
    if (items == 0) baseVersion = entry.version();
    startItem(restart);
    long delta = entry.version() - (shared == 0 ? baseVersion : previousVersion);
    sink.putVarint(shared);
    sink.putVarint(unshared);
    sink.putVarint(valueBytes);
    sink.putByte(value == null ? TableFormat.TYPE_TOMBSTONE
        : entry.expires() ? TableFormat.TYPE_EXPIRING_VALUE : TableFormat.TYPE_VALUE);
    sink.putVarint((delta << 1) ^ (delta >> 63)); // zigzag: small either side of 0, few bytes
    sink.putBytes(key, shared, unshared);
    if (entry.expires()) sink.putLong(entry.expiresAtMillis());
    if (value != null) sink.putBytes(value);
    previousKey = key;
    previousVersion = entry.version();
  }

  /**
   * Appends a format_version 4 {@code index_entry}: key_length block_offset block_length
   * first_key_length key first_key.
   */
  void addIndexEntry(byte[] lastKey, byte[] firstKey, BlockHandle block) throws IOException {
    startItem(true);
    sink.putU32(lastKey.length);
    sink.putLong(block.offset());
    sink.putU32(block.length());
    sink.putU32(firstKey.length);
    sink.putBytes(lastKey);
    sink.putBytes(firstKey);
  }

  boolean isEmpty() {
    return items == 0;
  }

  /** The bytes the open block's contents and trailer would take uncompressed if finished now. */
  long sizeBytes() {
    return items == 0 ? 0 : contentsBytesWith(0, false) + trailerBytes();
  }

  /**
   * Writes out the open block (a data block's base_version; restart offsets, their count, trailer;
   * compressed if it pays) and returns where it went.
   */
  BlockHandle finish() throws IOException {
    if (items == 0) throw new IllegalStateException("a block holds at least one item");
    if (buffer != null) sink.putLong(baseVersion);
    for (int i = 0; i < restarts; i++) sink.putInt(restartOffsets[i]);
    sink.putInt(restarts);
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
    items = 0;
    restarts = 0;
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

  /**
   * The open block's contents with one more item of {@code moreBytes} (0: none), a restart point
   * if {@code moreRestart}: items, a data block's base_version, restart offsets, their count.
   */
  private long contentsBytesWith(long moreBytes, boolean moreRestart) {
    int restartCount = moreRestart ? restarts + 1 : restarts;
    long baseVersionBytes = buffer != null ? TableFormat.BASE_VERSION_BYTES : 0;
    return itemBytes() + moreBytes + baseVersionBytes + 4L * restartCount + TableFormat.COUNT_BYTES;
  }

  /** The bytes of the open block's items so far. */
  private long itemBytes() {
    return sink == out ? out.position() - contentsStart : sink.position();
  }

  private int trailerBytes() {
    return buffer != null ? TableFormat.CODEC_BYTES + TableFormat.CRC_BYTES : TableFormat.CRC_BYTES;
  }

  /** Starts an item at the current position, listed among the restart points if {@code restart}. */
  private void startItem(boolean restart) {
    if (items == 0 && sink == out) {
      contentsStart = out.position();
      out.startChecksum();
    }
    items++;
    if (!restart) return;
    long itemOffset = itemBytes();
    if (itemOffset > TableFormat.U32_MAX) {
      throw new IllegalStateException("block exceeds the u32 restart offsets");
    }
    if (restarts == restartOffsets.length) restartOffsets = Arrays.copyOf(restartOffsets, restarts * 2);
    restartOffsets[restarts++] = (int) itemOffset;
  }

  /** How many leading bytes {@code key} shares with {@code previous}. */
  private static int sharedPrefix(byte[] previous, byte[] key) {
    int mismatch = Arrays.mismatch(previous, key);
    return mismatch < 0 ? key.length : mismatch;
  }
}
