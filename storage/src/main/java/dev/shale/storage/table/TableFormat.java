package dev.shale.storage.table;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Constants and primitive readers of the table layout (docs/format.md, "Table").
 *
 * <p>Do not change any constant here: each is embedded in on-disk data.
 */
final class TableFormat {
  /** "SHALESST" read as a little-endian u64. Do not change: embedded in on-disk data. */
  static final long MAGIC = 0x545353454C414853L;
  /** Tables whose data blocks are {@code block(entry)}: written before block compression. */
  static final int FORMAT_VERSION_1 = 1;
  /** Tables whose data blocks end in a codec byte and may be compressed, entries of fixed width. */
  static final int FORMAT_VERSION_2 = 2;
  /** Tables whose data blocks hold prefix_contents (keys shared with the entry before). */
  static final int FORMAT_VERSION_3 = 3;
  /**
   * Tables of format 3 whose footer carries their file number and whose index carries each
   * block's first key: what the writer writes.
   */
  static final int FORMAT_VERSION_4 = 4;
  /** The newest format version, which the writer writes and above which a reader refuses. */
  static final int LATEST_FORMAT_VERSION = FORMAT_VERSION_4;
  /**
   * footer_fields, the whole footer of format_version 1 to 3 and the last 64 bytes of every footer.
   * Do not change: embedded in on-disk data.
   */
  static final int FOOTER_BYTES = 64;
  /** Bytes of a format_version 1 to 3 footer covered by its crc. Do not change: embedded in on-disk data. */
  static final int FOOTER_CRC_COVERED_BYTES = 52;
  /** file_number:u64 leading a format_version 4 footer. Do not change: embedded in on-disk data. */
  static final int FILE_NUMBER_BYTES = 8;
  /** A format_version 4 footer: file_number, then footer_fields. Do not change: embedded in on-disk data. */
  static final int FOOTER_V4_BYTES = FILE_NUMBER_BYTES + FOOTER_BYTES;

  /** Record types. Do not change: embedded in on-disk data. */
  static final byte TYPE_VALUE = 1;
  static final byte TYPE_TOMBSTONE = 2;
  /** A value with an expiry: its value bytes are expires_at:u64 then the value. */
  static final byte TYPE_EXPIRING_VALUE = 3;
  /** expires_at:u64 leading an expiring value's value bytes. Do not change: embedded in on-disk data. */
  static final int EXPIRY_BYTES = 8;

  /** key_length:u32 value_length:u32 version:u64 type:u8, before the key. */
  static final int ENTRY_HEADER_BYTES = 17;
  /** The fewest bytes of a prefix_entry: four one-byte varints and the type. */
  static final int MIN_PREFIX_ENTRY_BYTES = 5;
  /** base_version:u64 after a prefix_contents' entries. */
  static final int BASE_VERSION_BYTES = 8;
  /**
   * Entries between restart points in the data blocks the writer builds (RocksDB's and LevelDB's
   * default): a seek decodes at most this many entries past a binary search. Readers follow the
   * restart array, so this may change without a format change.
   */
  static final int RESTART_INTERVAL = 16;
  /** key_length:u32 block_offset:u64 block_length:u32, before the key (format_version 1 to 3). */
  static final int INDEX_ENTRY_HEADER_BYTES = 16;
  /** As {@link #INDEX_ENTRY_HEADER_BYTES}, then first_key_length:u32 (format_version 4). */
  static final int INDEX_ENTRY_V4_HEADER_BYTES = INDEX_ENTRY_HEADER_BYTES + 4;
  /** count:u32 closing a block's contents. */
  static final int COUNT_BYTES = 4;
  /** crc:u32 closing every stored block. */
  static final int CRC_BYTES = 4;
  /** codec:u8 before the crc of a format_version 2 or 3 data block. */
  static final int CODEC_BYTES = 1;
  /** contents_length:u32 leading a compressed data block. */
  static final int CONTENTS_LENGTH_BYTES = 4;
  /** Data block codecs. Do not change: embedded in on-disk data. */
  static final byte CODEC_NONE = 0;
  static final byte CODEC_LZ4 = 1;
  static final byte CODEC_ZSTD = 2;
  /**
   * The smallest data block of any format version: a compressed block of one byte (its
   * contents_length, that byte, codec and crc). Stored contents are larger: an entry with an
   * empty key and no value, its offset and the count.
   */
  static final int MIN_DATA_BLOCK_BYTES = CONTENTS_LENGTH_BYTES + 1 + CODEC_BYTES + CRC_BYTES;
  /**
   * The largest data block contents the writer compresses (larger blocks, made by one big value,
   * are streamed to the file uncompressed); a reader takes a larger contents_length for damage.
   */
  static final int MAX_COMPRESSED_CONTENTS_BYTES = 1 << 20;
  /** num_probes:u32 bit_count:u32 before the bits, crc:u32 after them. */
  static final int FILTER_OVERHEAD_BYTES = 12;

  static final ValueLayout.OfInt U32 =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  static final ValueLayout.OfLong U64 =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** The largest value a u32 field holds. */
  static final long U32_MAX = 0xFFFF_FFFFL;

  /** A ByteBuffer view holds at most 2 GiB, so larger slices are checksummed piecewise. */
  private static final long CRC_CHUNK_BYTES = 1L << 30;

  private TableFormat() {}

  /** The crc32c of {@code bytes}, read in place (CRC32C on a direct buffer is an intrinsic). */
  static int crc32c(MemorySegment bytes) {
    CRC32C crc = new CRC32C();
    for (long from = 0; from < bytes.byteSize(); from += CRC_CHUNK_BYTES) {
      crc.update(bytes.asSlice(from, Math.min(CRC_CHUNK_BYTES, bytes.byteSize() - from)).asByteBuffer());
    }
    return (int) crc.getValue();
  }
}
