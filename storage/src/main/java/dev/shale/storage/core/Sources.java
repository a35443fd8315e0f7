package dev.shale.storage.core;

import dev.shale.storage.Entry;
import java.util.Iterator;
import java.util.List;

/** The sources of a merge (scans, compactions): memtable iterators, and table iterators to close. */
final class Sources {
  private Sources() {}

  /**
   * Closes every source that holds something until closed (a table's or a level's iterator: its
   * read-ahead window); memtable iterators hold nothing. Each is closed even if one before it
   * throws; the first failure is rethrown.
   */
  static void closeAll(List<? extends Iterator<Entry>> sources) {
    RuntimeException failure = null;
    for (Iterator<Entry> source : sources) {
      if (!(source instanceof AutoCloseable)) continue;
      try {
        ((AutoCloseable) source).close();
      } catch (RuntimeException e) {
        if (failure == null) failure = e;
        else failure.addSuppressed(e);
      } catch (Exception e) {
        throw new IllegalStateException("a merge source's close threw a checked exception", e);
      }
    }
    if (failure != null) throw failure;
  }
}
