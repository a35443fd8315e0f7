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
  /** Do not change: embedded in on-disk data. */
  static final int FORMAT_VERSION = 1;
  /** Do not change: embedded in on-disk data. */
  static final int FOOTER_BYTES = 64;
  /** Bytes of the footer covered by its crc. Do not change: embedded in on-disk data. */
  static final int FOOTER_CRC_COVERED_BYTES = 52;

  /** Record types. Do not change: embedded in on-disk data. */
  static final byte TYPE_VALUE = 1;
  static final byte TYPE_TOMBSTONE = 2;
  /** A value with an expiry: its value bytes are expires_at:u64 then the value. */
  static final byte TYPE_EXPIRING_VALUE = 3;
  /** expires_at:u64 leading an expiring value's value bytes. Do not change: embedded in on-disk data. */
  static final int EXPIRY_BYTES = 8;

  /** key_length:u32 value_length:u32 version:u64 type:u8, before the key. */
  static final int ENTRY_HEADER_BYTES = 17;
  /** key_length:u32 block_offset:u64 block_length:u32, before the key. */
  static final int INDEX_ENTRY_HEADER_BYTES = 16;
  /** count:u32 crc:u32 closing every block. */
  static final int BLOCK_TRAILER_BYTES = 8;
  /** The smallest data block: one entry with an empty key and no value, its offset, trailer. */
  static final int MIN_DATA_BLOCK_BYTES = ENTRY_HEADER_BYTES + 4 + BLOCK_TRAILER_BYTES;
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
