package dev.shale.storage.manifest;

import dev.shale.storage.table.TableMeta;
import java.util.List;

/**
 * The state of a store as one manifest record holds it (docs/format.md, "Manifest"): a complete
 * snapshot of the file set, not a delta.
 *
 * @param nextFileNumber above every file number in use
 * @param logNumber log segments numbered at least this hold records not yet in any table
 * @param lastVersion at least the highest version in the tables
 * @param tables the live tables
 */
public record ManifestSnapshot(
    long nextFileNumber, long logNumber, long lastVersion, List<TableMeta> tables) {

  public ManifestSnapshot {
    tables = List.copyOf(tables);
  }

  public ManifestSnapshot withNextFileNumber(long value) {
    return new ManifestSnapshot(value, logNumber, lastVersion, tables);
  }
}
