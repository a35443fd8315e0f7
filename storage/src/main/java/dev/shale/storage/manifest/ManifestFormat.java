package dev.shale.storage.manifest;

/**
 * Constants of the manifest (docs/format.md, "Manifest").
 *
 * <p>Do not change any constant here: each is embedded in on-disk data.
 */
final class ManifestFormat {
  /** "SHALEMAN" read as a little-endian u64. Do not change: embedded in on-disk data. */
  static final long MAGIC = 0x4E414D454C414853L;
  /**
   * The format_version this code writes: 3, whose snapshots list the log segments that must be on
   * disk with the size each had when writes left it (2 lists them without sizes). Do not change:
   * embedded in on-disk data.
   */
  static final int FORMAT_VERSION = 3;
  /** The first format_version whose snapshots list segments. */
  static final int SEGMENTS_LISTED = 2;
  /** The first format_version whose listed segments carry their sealed_size. */
  static final int SEALED_SIZES = 3;
  /** The oldest format_version read: 1, whose snapshots list no segment. */
  static final int OLDEST_FORMAT_VERSION = 1;

  private ManifestFormat() {}
}
