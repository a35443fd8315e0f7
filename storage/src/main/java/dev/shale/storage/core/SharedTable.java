package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.table.Table;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.nio.file.Path;
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
