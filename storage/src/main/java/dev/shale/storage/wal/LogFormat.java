package dev.shale.storage.wal;

/**
 * Constants of the write-ahead log (docs/format.md, "Write-ahead log").
 *
 * <p>Do not change any constant here: each is embedded in on-disk data.
 */
final class LogFormat {
  /** "SHALEWAL" read as a little-endian u64. Do not change: embedded in on-disk data. */
  static final long MAGIC = 0x4C4157454C414853L;
  /** The header's format_version. Do not change: embedded in on-disk data. */
  static final int FORMAT_VERSION = 1;
  /** Record types. Do not change: embedded in on-disk data. */
  static final byte TYPE_VALUE = 1;
  static final byte TYPE_TOMBSTONE = 2;
  /** A value with an expiry: its value bytes are expires_at:u64 then the value. */
  static final byte TYPE_EXPIRING_VALUE = 3;
  /** expires_at:u64 leading an expiring value's value bytes. Do not change: embedded in on-disk data. */
  static final int EXPIRY_BYTES = 8;
  /**
   * type:u8 version:u64 key_length:u32 value_length:u32 before the key.
   * Do not change: embedded in on-disk data.
   */
  static final int PAYLOAD_HEADER_BYTES = 17;

  private LogFormat() {}
}
