package dev.shale.storage.table;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.ThrottledLog;
import java.lang.System.Logger.Level;
import java.nio.file.Path;

/** Builds (and, unless the caller reports it itself, logs) the CorruptionException for bad bytes in a table file. */
final class TableCorruption {
  // Every read of a corrupt block finds it again: one line per block per interval, with a count.
  private static final ThrottledLog LOG = new ThrottledLog(
      System.getLogger(Table.class.getName()), Level.ERROR, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private TableCorruption() {}

  /** Corruption of the block (or footer) at {@code offset} of {@code file}. */
  static CorruptionException at(Path file, long offset, String what) {
    CorruptionException e = unlogged(file, offset, what);
    String line = String.valueOf(e.getMessage()); // a CorruptionException always has one
    LOG.log(line, () -> line);
    return e;
  }

  /** As {@link #at}, for damage the caller serves around and reports itself. */
  static CorruptionException unlogged(Path file, long offset, String what) {
    return new CorruptionException(file, "table corrupt at offset " + offset + ": " + what);
  }
}
