package dev.shale.storage.table;

import dev.shale.storage.CorruptionException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;

/** Builds, and logs, the CorruptionException for bad bytes in a table file. */
final class TableCorruption {
  private static final System.Logger LOG = System.getLogger(Table.class.getName());

  private TableCorruption() {}

  /** Corruption of the block (or footer) at {@code offset} of {@code file}. */
  static CorruptionException at(Path file, long offset, String what) {
    String message = "table corrupt at offset " + offset + ": " + what;
    LOG.log(Level.ERROR, file + ": " + message);
    return new CorruptionException(file, message);
  }
}
