package dev.shale.storage.core;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import dev.shale.storage.Vfs;
import dev.shale.storage.table.BlockCache;
import dev.shale.storage.table.BlockPins;
import dev.shale.storage.table.FoundRecord;
import dev.shale.storage.table.PeekableRecords;
import dev.shale.storage.table.ReadAhead;
import dev.shale.storage.table.Table;
import dev.shale.storage.table.TableIdentity;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.util.Murmur3.Hash128;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An open table at a level, shared by the read views (and compactions) that list it, closed
 * when the last of them lets go: a read in flight on an old view never touches a closed file. A table that compaction made obsolete is also deleted then.
 *
 * <p>Thread safe. The creator holds the first reference and must {@link #release} it. Moving a
 * table to another level ({@link #atLevel}) gives a second handle on the same open file, counted
 * with it.
 */
final class SharedTable {
  private static final System.Logger LOG = System.getLogger(SharedTable.class.getName());

  private final OpenFile file;
  private final TableMeta meta;

  private SharedTable(OpenFile file, TableMeta meta) {
    this.file = file;
    this.meta = meta;
  }

  /**
   * Opens a table this engine just wrote, checked to be the table {@code meta} describes. Its
   * filter must be intact: damage found right after the write is a failed write (the flush or
   * compaction fails and is retried), not one to serve around.
   */
  static SharedTable open(Vfs vfs, Path path, TableMeta meta, BlockCache blockCache) throws IOException {
    Table table = openDescribed(vfs, path, meta, blockCache);
    if (table.filterDamage() != null) {
      table.close();
      throw new CorruptionException(path, table.filterDamage());
    }
    return new SharedTable(new OpenFile(vfs, table), meta);
  }

  /**
   * Opens a table of the store found at open, checked to be the table the manifest's {@code meta}
   * describes (else a CorruptionException naming it: docs/format.md, "Recovery at open", step 1).
   * A damaged filter is served around (docs/format.md, "Damage found at open") and reported to
   * {@code damage}; the compaction that rewrites the table makes the registry forget it
   * (CompactionHost).
   */
  static SharedTable openServingAroundDamage(
      Vfs vfs, Path path, TableMeta meta, DamageRegistry damage, BlockCache blockCache) throws IOException {
    Table table = openDescribed(vfs, path, meta, blockCache);
    if (table.filterDamage() != null) {
      damage.report(path, "Bloom filter unusable: " + table.filterDamage(), "the table is served"
          + " without its filter (each read of it reads a block; no data is lost); a compaction"
          + " that rewrites the table (Engine.compact()) gives it a new filter");
    }
    return new SharedTable(new OpenFile(vfs, table), meta);
  }

  // A table whose file is not the one meta describes (another table copied over it) is never
  // served: its keys would stand in for the described table's.
  private static Table openDescribed(Vfs vfs, Path path, TableMeta meta, BlockCache blockCache) throws IOException {
    Table table = Table.open(vfs, path, meta.fileNumber(), blockCache);
    try {
      TableIdentity.check(table, meta);
    } catch (RuntimeException | Error e) {
      table.close();
      throw e;
    }
    return table;
  }

  /** The same file at {@code level}, with a reference of its own for the caller. */
  SharedTable atLevel(int level) {
    file.retain();
    return new SharedTable(file, meta.withLevel(level));
  }

  TableMeta meta() {
    return meta;
  }

  int level() {
    return meta.level();
  }

  long fileNumber() {
    return meta.fileNumber();
  }

  long sizeBytes() {
    return meta.fileSizeBytes();
  }

  long minVersion() {
    return meta.minVersion();
  }

  long maxVersion() {
    return meta.maxVersion();
  }

  byte[] smallestKey() {
    return meta.smallestKey();
  }

  byte[] largestKey() {
    return meta.largestKey();
  }

  /** True if {@code key} lies within the table's key range. */
  boolean covers(byte[] key) {
    return Keys.compare(key, meta.smallestKey()) >= 0 && Keys.compare(key, meta.largestKey()) <= 0;
  }

  /** True if the table's key range meets {@code [smallest, largest]} (both inclusive). */
  boolean overlapsClosed(byte[] smallest, byte[] largest) {
    return Keys.compare(meta.largestKey(), smallest) >= 0
        && Keys.compare(meta.smallestKey(), largest) <= 0;
  }

  /**
   * The record of {@code key} in place, or null; {@code keyHash} is {@link Table#filterHash} of
   * it. Its value is valid until {@code pins} close (the caller holds a reference until then).
   */
  @Nullable FoundRecord find(byte[] key, Hash128 keyHash, BlockPins pins) {
    return file.table.find(key, keyHash, pins);
  }

  /**
   * All records in key order, read ahead in windows of {@code readAhead} (a compaction's); the
   * caller holds a reference while it iterates, and closes the iterator.
   */
  PeekableRecords iterator(ReadAhead readAhead) {
    return file.table.iterator(null, null, readAhead);
  }

  Path path() {
    return file.table.path();
  }

  /**
   * Deletes the file once the last reference goes. Called only after a manifest snapshot that
   * no longer names the table is durable (docs/format.md, "Manifest").
   */
  void markObsolete() {
    file.obsolete = true;
  }

  /**
   * Marks the table found damaged by a compaction: it is set aside in level 0 and no compaction
   * reads it again (CompactionPicker). Shared by every handle on the file, so the mark survives the
   * move; not persisted: after a restart the first compaction to read the damage sets it aside
   * again.
   */
  void markSetAside() {
    file.setAside = true;
  }

  boolean isSetAside() {
    return file.setAside;
  }

  /**
   * The table's records in {@code [fromInclusive, toExclusive)}, read ahead as a scan reads; see
   * {@link Table#iterator(byte[], byte[], ReadAhead)}. The caller closes it.
   */
  PeekableRecords iterator(byte @Nullable [] fromInclusive, byte @Nullable [] toExclusive) {
    return file.table.iterator(fromInclusive, toExclusive, ReadAhead.SCAN);
  }

  /** Whether the table's key range meets {@code [fromInclusive, toExclusive)} (null: unbounded). */
  boolean overlaps(byte @Nullable [] fromInclusive, byte @Nullable [] toExclusive) {
    return (fromInclusive == null || Keys.compare(meta.largestKey(), fromInclusive) >= 0)
        && (toExclusive == null || Keys.compare(meta.smallestKey(), toExclusive) < 0);
  }

  /**
   * The references held now on the file: the views listing the table, plus the creator's until
   * released (handles at other levels on the same file count too).
   */
  int references() {
    return file.references.get();
  }

  void retain() {
    file.retain();
  }

  void release() {
    file.release();
  }

  @Override
  public String toString() {
    return meta.toString();
  }

  /** The open table and its reference count, shared by every handle on it. */
  private static final class OpenFile {
    private final Vfs vfs;
    private final Table table;
    // Invariant: > 0 while the table is open; it is closed exactly once, on the step to 0.
    private final AtomicInteger references = new AtomicInteger(1);
    // Set before the reference that would reach 0 is released, so that step sees it.
    private volatile boolean obsolete;
    private volatile boolean setAside;

    OpenFile(Vfs vfs, Table table) {
      this.vfs = vfs;
      this.table = table;
    }

    void retain() {
      int before = references.getAndIncrement();
      if (before <= 0) {
        throw new IllegalStateException("table " + table.path() + " retained after close");
      }
    }

    void release() {
      int after = references.decrementAndGet();
      if (after < 0) throw new IllegalStateException("table " + table.path() + " released too often");
      if (after > 0) return;
      table.close();
      if (obsolete) delete();
    }

    private void delete() {
      try {
        vfs.delete(table.path());
      } catch (IOException e) {
        LOG.log(Level.WARNING,
            "deleting obsolete table " + table.path() + " failed (deleted at next open): " + e);
      }
    }
  }
}
