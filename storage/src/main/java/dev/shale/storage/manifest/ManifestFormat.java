package dev.shale.storage.manifest;

/**
 * Constants of the manifest (docs/format.md, "Manifest").
 *
 * <p>Do not change any constant here: each is embedded in on-disk data.
 */
final class ManifestFormat {
  /** "SHALEMAN" read as a little-endian u64. Do not change: embedded in on-disk data. */
  static final long MAGIC = 0x4E414D454C414853L;

  private ManifestFormat() {}
}
