package dev.shale.storage.table;

import dev.shale.storage.Keys;

/**
 * Metadata of a written table, as the manifest stores it (docs/format.md, "Manifest").
 *
 * @param fileNumber the number in the table's name, {@code <n>.sst}
 * @param level 0 for a table written by a flush
 * @param fileSizeBytes the file's length
 * @param entryCount records in the table, values and tombstones
 * @param minVersion the lowest version of its records
 * @param maxVersion the highest version of its records
 * @param smallestKey its first key (the array belongs to the meta: do not change it)
 * @param largestKey its last key (the array belongs to the meta: do not change it)
 */
public record TableMeta(
    long fileNumber,
    int level,
    long fileSizeBytes,
    long entryCount,
    long minVersion,
    long maxVersion,
    byte[] smallestKey,
    byte[] largestKey) {

  /** The same table at {@code newLevel} (compaction moves tables between levels). */
  public TableMeta withLevel(int newLevel) {
    return new TableMeta(
        fileNumber, newLevel, fileSizeBytes, entryCount, minVersion, maxVersion, smallestKey, largestKey);
  }

  @Override
  public String toString() {
    return "TableMeta[file=" + fileNumber + ", level=" + level + ", " + fileSizeBytes + " bytes, "
        + entryCount + " records, versions [" + minVersion + ", " + maxVersion + "], keys ["
        + Keys.toDisplay(smallestKey) + ", " + Keys.toDisplay(largestKey) + "]]";
  }
}
