package dev.shale.storage.table;

import dev.shale.storage.Keys;
import dev.shale.storage.io.FileNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Whether an open table is the table a manifest record describes (docs/format.md, "Recovery at
 * open", step 1): a valid table copied or renamed over another's name passes every crc, and would
 * be served in that table's place, its keys for the other's.
 */
public final class TableIdentity {
  /*
   * What is compared, all of it from the footer and the index, which Table.open has read and
   * checked already: no data block is read, so a damaged block still fails only the reads that
   * need it. The file number (format 4) tells any other table apart for certain; size, record
   * count, versions and key range tell apart tables written before it (formats 1 to 3), and a
   * table of the same number from another store (a backup restored into the wrong directory).
   * A format 1 to 3 index holds each block's last key only, so the first key is bounded by the
   * first block's last key rather than compared.
   */

  private TableIdentity() {}

  /**
   * Throws a {@link dev.shale.storage.CorruptionException} (logged) naming the table's file, its footer's offset and every
   * way the table differs from {@code described}, if it differs in any.
   */
  public static void check(Table table, TableMeta described) {
    Footer footer = table.footer();
    IndexBlock index = table.index();
    List<String> differences = new ArrayList<>();
    if (footer.fileNumber() != Footer.NO_FILE_NUMBER && footer.fileNumber() != described.fileNumber()) {
      differences.add("its footer says it is table " + FileNames.table(footer.fileNumber()) + ", not "
          + FileNames.table(described.fileNumber()));
    }
    compare(differences, "size in bytes", table.sizeBytes(), described.fileSizeBytes());
    compare(differences, "record count", footer.entryCount(), described.entryCount());
    compare(differences, "min_version", footer.minVersion(), described.minVersion());
    compare(differences, "max_version", footer.maxVersion(), described.maxVersion());
    byte[] lastKey = index.lastKey(index.blockCount() - 1);
    if (!Arrays.equals(lastKey, described.largestKey())) {
      differences.add("its last key is " + quote(lastKey) + ", the manifest records " + quote(described.largestKey()));
    }
    if (index.hasFirstKeys()) {
      byte[] firstKey = index.firstKey(0);
      if (!Arrays.equals(firstKey, described.smallestKey())) {
        differences.add("its first key is " + quote(firstKey) + ", the manifest records " + quote(described.smallestKey()));
      }
    } else if (Keys.compare(described.smallestKey(), index.lastKey(0)) > 0) {
      differences.add("its first block ends at " + quote(index.lastKey(0)) + ", below the first key the manifest"
          + " records, " + quote(described.smallestKey()));
    }
    if (differences.isEmpty()) return;
    throw TableCorruption.at(table.path(), footer.offset(table.sizeBytes()), "not the table the manifest describes: "
        + String.join("; ", differences) + ". A table copied or renamed over this one, or restored from another"
        + " store, would look so: put back the file the manifest names (from a backup or a checkpoint)");
  }

  private static void compare(List<String> differences, String what, long found, long described) {
    if (found != described) differences.add("its " + what + " is " + found + ", the manifest records " + described);
  }

  private static String quote(byte[] key) {
    return "'" + Keys.toDisplay(key) + "'";
  }
}
