package dev.shale.storage.io;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The framing shared by the write-ahead log and the manifest (docs/format.md, "Write-ahead log"
 * and "Manifest"): a 16-byte file header, then records {@code crc:u32 length:u32 payload}, the
 * crc being crc32c over the length's 4 bytes followed by the payload. Each kind of file has its
 * own magic and format version (LogFormat, ManifestFormat).
 *
 * <p>Do not change any constant here: each is embedded in on-disk data.
 */
public final class RecordFormat {
  /** magic:u64 format_version:u32 reserved:u32. Do not change: embedded in on-disk data. */
  public static final int HEADER_BYTES = 16;
  /** crc:u32 length:u32 before each payload. Do not change: embedded in on-disk data. */
  public static final int FRAME_HEADER_BYTES = 8;
  /** Where the crc-covered bytes of a frame start: right after the crc. */
  static final int CRC_COVERED_FROM = 4;

  static final ValueLayout.OfInt U32 =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  static final ValueLayout.OfLong U64 =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private RecordFormat() {}
}
