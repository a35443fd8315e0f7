package dev.shale.storage.manifest;

import dev.shale.storage.table.TableMeta;
import java.util.List;
import java.util.Map;

/**
 * The state of a store as one manifest record holds it (docs/format.md, "Manifest"): a complete
 * snapshot of the file set, not a delta.
 *
 * @param nextFileNumber above every file number in use
 * @param logNumber log segments numbered at least this hold records not yet in any table
 * @param lastVersion the engine's clock when the snapshot was built: at least the highest version
 *     in the tables and in the log segments numbered below {@code logNumber}
 * @param tables the live tables
 * @param segments the log segments that must be on disk, ascending, {@code logNumber} first
 *     (none in a snapshot naming no segment, a checkpoint's); none either in a snapshot read from
 *     a format_version 1 manifest, which does not list them ({@link ManifestLoader.Loaded#listsSegments})
 * @param sealedSizes for listed segments that writes have left, the size each had then
 *     (docs/format.md, "Manifest", {@code sealed_size}); never the last listed segment's, the
 *     one writes go to; none in a snapshot read from a format_version 1 or 2 manifest
 */
public record ManifestSnapshot(
    long nextFileNumber, long logNumber, long lastVersion, List<TableMeta> tables, List<Long> segments,
    Map<Long, Long> sealedSizes) {

  public ManifestSnapshot {
    tables = List.copyOf(tables);
    segments = List.copyOf(segments);
    sealedSizes = Map.copyOf(sealedSizes);
  }

  /** A snapshot that records no segment's sealed size (a checkpoint's, a new store's, a test's). */
  public ManifestSnapshot(long nextFileNumber, long logNumber, long lastVersion, List<TableMeta> tables, List<Long> segments) {
    this(nextFileNumber, logNumber, lastVersion, tables, segments, Map.of());
  }

  public ManifestSnapshot withNextFileNumber(long value) {
    return new ManifestSnapshot(value, logNumber, lastVersion, tables, segments, sealedSizes);
  }
}
