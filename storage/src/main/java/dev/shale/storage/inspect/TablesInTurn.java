package dev.shale.storage.inspect;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.table.Table;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The records of the tables of one level below 0 in {@code [start, end)}, one table after the
 * other: their key ranges are disjoint and they come sorted, so the keys increase. A table's
 * iterator (and its read-ahead window) is opened only once the one before is exhausted, and
 * closed then, as the engine's own LevelIterator does. Not thread safe.
 */
final class TablesInTurn implements EntryIterator {
  private final List<Table> tables; // by smallest key
  private final byte[] start;
  private final byte @Nullable [] end;
  private int nextTable;
  private @Nullable EntryIterator current;
  private boolean closed;

  TablesInTurn(List<Table> tables, byte[] start, byte @Nullable [] end) {
    this.tables = List.copyOf(tables);
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
