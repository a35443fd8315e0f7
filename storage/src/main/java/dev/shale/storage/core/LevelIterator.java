package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The records of one level below 0 in {@code [start, end)}: its tables hold disjoint key ranges
 * and are sorted by key, so reading them one after the other yields increasing keys. A table is
 * opened (sought to the range) only once the one before it is exhausted.
 *
 * <p>Why one source per level rather than per table: the merge holds one decoded record per
 * source, values included. A level of 256 tables of 1 MiB values would otherwise pin 256 MiB of
 * decoded values in a scan; this way a scan holds one record per level (and per level-0 table
 * and memtable), whatever the size of the store (LevelDB's concatenating iterator).
 *
 * <p>Not thread safe; the caller's view keeps the tables open while it iterates. Each table's
 * iterator is closed once exhausted, and the one being read by {@link #close}.
 */
final class LevelIterator implements EntryIterator {
  private final List<SharedTable> tables; // of one level >= 1, by key, each overlapping the range
  private final byte[] start;
  private final byte @Nullable [] end; // null: unbounded
  private int nextTable;
  private @Nullable EntryIterator current; // the table being read; null before the first and once closed
  private boolean closed;

  LevelIterator(List<SharedTable> tables, byte[] start, byte @Nullable [] end) {
    this.tables = tables;
    this.start = start;
    this.end = end;
  }

  @Override
  public boolean hasNext() {
    if (closed) return false;
    EntryIterator reading = current;
    while (reading == null || !reading.hasNext()) {
      if (reading != null) reading.close();
      if (nextTable == tables.size()) {
        current = null;
        return false;
      }
      reading = current = tables.get(nextTable++).iterator(start, end);
    }
    return true;
  }

  @Override
  public Entry next() {
    if (!hasNext()) throw new NoSuchElementException();
    return Objects.requireNonNull(current, "hasNext() opened a table").next();
  }

  @Override
  public void close() {
    closed = true;
    EntryIterator reading = current;
    current = null;
    if (reading != null) reading.close();
  }
}
