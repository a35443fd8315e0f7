package dev.shale.storage.table;

import dev.shale.storage.CorruptionException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;

/** Builds (and, unless the caller reports it itself, logs) the CorruptionException for bad bytes in a table file. */
final class TableCorruption {
  private static final System.Logger LOG = System.getLogger(Table.class.getName());

  private TableCorruption() {}

  /** Corruption of the block (or footer) at {@code offset} of {@code file}. */
  static CorruptionException at(Path file, long offset, String what) {
    CorruptionException e = unlogged(file, offset, what);
    LOG.log(Level.ERROR, e.getMessage());
    return e;
  }

  /** As {@link #at}, for damage the caller serves around and reports itself. */
  static CorruptionException unlogged(Path file, long offset, String what) {
    return new CorruptionException(file, "table corrupt at offset " + offset + ": " + what);
  }
}
