package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.table.FoundRecord;
import dev.shale.storage.table.PeekableRecords;
import dev.shale.storage.table.ReadAhead;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The records of tables of one level below 0: they hold disjoint key ranges and are sorted by
 * key, so reading them one after the other yields increasing keys. A table is opened (sought to
 * the range, for a scan) only once the one before it is exhausted.
 *
 * <p>Why one source per level rather than per table: the merge holds a position per source (a
 * key, the record left in its block), and each open table iterator holds its read-ahead window.
 * A full compaction of 565 tables held 565 windows of 2 MiB (1.1 GiB: a node with a 2 GiB budget
 * was killed for it); this way a merge holds one position and one window per level (and per
 * level-0 table and memtable), whatever the size of the store (LevelDB's concatenating iterator).
 * Like a table's, its next record can be peeked at ({@link PeekableRecords}): the merge copies
 * out only the record that wins its key.
 *
 * <p>Not thread safe; the caller's view keeps the tables open while it iterates. Each table's
 * iterator is closed once exhausted, and the one being read by {@link #close}.
 */
final class LevelIterator implements PeekableRecords {
  private final List<SharedTable> tables; // of one level >= 1, by key, each overlapping the range
  private final Function<SharedTable, PeekableRecords> open; // a table's iterator, as the reader reads
  private int nextTable;
  private @Nullable PeekableRecords current; // the table being read; null before the first and once closed
  private boolean closed;

  private LevelIterator(List<SharedTable> tables, Function<SharedTable, PeekableRecords> open) {
    this.tables = tables;
    this.open = open;
  }

  /** A scan's: the records of {@code tables} in {@code [start, end)} (null end: unbounded). */
  static LevelIterator forScan(List<SharedTable> tables, byte[] start, byte @Nullable [] end) {
    return new LevelIterator(tables, t -> t.iterator(start, end));
  }

  /** A compaction's: every record of {@code tables}, read ahead in windows of {@code readAhead}. */
  static LevelIterator forCompaction(List<SharedTable> tables, ReadAhead readAhead) {
    return new LevelIterator(tables, t -> t.iterator(readAhead));
  }

  @Override
  public boolean hasNext() {
    if (closed) return false;
    PeekableRecords reading = current;
    while (reading == null || !reading.hasNext()) {
      if (reading != null) reading.close();
      if (nextTable == tables.size()) {
        current = null;
        return false;
      }
      reading = current = open.apply(tables.get(nextTable++));
    }
    return true;
  }

  @Override
  public Entry next() {
    return reading().next();
  }

  @Override
  public byte[] peekKey() {
    return reading().peekKey();
  }

  @Override
  public FoundRecord peekRecord() {
    return reading().peekRecord();
  }

  @Override
  public void skip() {
    reading().skip();
  }

  // The table whose next record is the level's next.
  private PeekableRecords reading() {
    if (!hasNext()) throw new NoSuchElementException();
    return Objects.requireNonNull(current, "hasNext() opened a table");
  }

  @Override
  public void close() {
    closed = true;
    PeekableRecords reading = current;
    current = null;
    if (reading != null) reading.close();
  }
}
