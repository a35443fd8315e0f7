package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.table.Table;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open table shared by the read views that list it, closed (unmapped) when the last of them
 * lets go: a read in flight on an old view never touches an unmapped file.
 *
 * <p>Thread safe. The creator holds the first reference and must {@link #release} it.
 */
final class SharedTable {
  private final Table table;
  private final TableMeta meta;
  // Invariant: > 0 while the table is open; it is closed exactly once, on the step to 0.
  private final AtomicInteger references = new AtomicInteger(1);

  private SharedTable(Table table, TableMeta meta) {
    this.table = table;
    this.meta = meta;
  }

  static SharedTable open(Path file, TableMeta meta) throws IOException {
    return new SharedTable(Table.open(file, meta.fileNumber()), meta);
  }

  TableMeta meta() {
    return meta;
  }

  long fileNumber() {
    return meta.fileNumber();
  }

  long maxVersion() {
    return table.maxVersion();
  }

  Entry get(byte[] key) {
    return table.get(key);
  }

  /** The table's records in {@code [fromInclusive, toExclusive)}; see {@link Table#iterator(byte[], byte[])}. */
  Iterator<Entry> iterator(byte[] fromInclusive, byte[] toExclusive) {
    return table.iterator(fromInclusive, toExclusive);
  }

  /** Whether the table's key range meets {@code [fromInclusive, toExclusive)} (null: unbounded). */
  boolean overlaps(byte[] fromInclusive, byte[] toExclusive) {
    return (fromInclusive == null || Keys.compare(meta.largestKey(), fromInclusive) >= 0)
        && (toExclusive == null || Keys.compare(meta.smallestKey(), toExclusive) < 0);
  }

  /** The references held now: the views listing the table, plus the creator's until released. */
  int references() {
    return references.get();
  }

  void retain() {
    int before = references.getAndIncrement();
    if (before <= 0) {
      throw new IllegalStateException("table " + table.path() + " retained after close");
    }
  }

  void release() {
    int after = references.decrementAndGet();
    if (after == 0) table.close();
    if (after < 0) throw new IllegalStateException("table " + table.path() + " released too often");
  }
}
