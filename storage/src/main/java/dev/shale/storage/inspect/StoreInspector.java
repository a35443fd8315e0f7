package dev.shale.storage.inspect;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.merge.MergingIterator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Reads a stopped node's data directory without opening it as a store (the offline tools, like
 * RocksDB's {@code ldb} and Cassandra's {@code sstableverify}): {@link #verify} every checksum and
 * every check of opening, {@link #get} and {@link #scan} what a node would serve. Opening a store
 * writes (a new log segment and manifest, torn tails cut, leftovers deleted); nothing here creates,
 * writes, truncates or deletes a file, the {@code LOCK} file included.
 *
 * <p>While open it holds a shared lock on the directory's {@code LOCK} file, so no node opens the
 * store meanwhile, and it refuses a directory a node holds. Not thread safe; close it.
 */
public final class StoreInspector implements AutoCloseable {
  private final Vfs vfs;
  private final Path directory;
  private final ReadLock lock;

  private StoreInspector(Vfs vfs, Path directory, ReadLock lock) {
    this.vfs = vfs;
    this.directory = directory;
    this.lock = lock;
  }

  /**
   * Takes {@code directory} for reading.
   *
   * @throws StorageException if it is not a directory, or a node (any process) holds its lock
   */
  public static StoreInspector open(Path directory) throws IOException {
    return open(Vfs.real(), directory);
  }

  static StoreInspector open(Vfs vfs, Path directory) throws IOException {
    if (!Directories.isDirectory(vfs, directory)) throw new StorageException(directory + " is not a directory");
    return new StoreInspector(vfs, directory, ReadLock.acquire(vfs, directory));
  }

  /** False when the directory has no LOCK file (a checkpoint, a copy): read without a lock. */
  public boolean locked() {
    return lock.held();
  }

  /** Every problem found in the store, and what was read; see {@link VerifyReport#whole}. */
  public VerifyReport verify() throws IOException {
    return new StoreVerifier(vfs, directory).run();
  }

  /**
   * The record of {@code key} a node would find (the newest version among the tables and the log
   * segments not yet in a table), a tombstone or an expired value included, so that the caller
   * can say which; null when the store holds none.
   *
   * @throws dev.shale.storage.CorruptionException or StorageException, as opening would refuse the store
   */
  public @Nullable Entry get(byte[] key) throws IOException {
    byte[] next = Arrays.copyOf(key, key.length + 1); // the least key above key
    try (StoreContents contents = StoreContents.read(vfs, directory, key, next)) {
      return contents.get(key);
    }
  }

  /**
   * The live records with keys in {@code [start, end)} ({@code end} null: to the last key), in key
   * order, as a node's scan would give them at wall-clock time {@code nowMillis}: the newest
   * version of each key, keys whose newest record is a tombstone or a value expired by then left
   * out. Streams from the tables; the logs' records of the range are held in memory. Close it.
   *
   * @throws dev.shale.storage.CorruptionException or StorageException, as opening would refuse the
   *     store (and from the iterator, for a damaged block it reaches)
   */
  public EntryIterator scan(byte[] start, byte @Nullable [] end, long nowMillis) throws IOException {
    StoreContents contents = StoreContents.read(vfs, directory, start, end);
    return new LiveRecords(contents, contents.sources(start, end), nowMillis);
  }

  @Override
  public void close() throws IOException {
    lock.close();
  }

  /** The merge of a scan's sources, newest version per key, dead records dropped. */
  private static final class LiveRecords implements EntryIterator {
    private final StoreContents contents;
    private final List<Iterator<Entry>> sources;
    private final Iterator<Entry> merged;
    private final long nowMillis;
    private @Nullable Entry next;
    private boolean closed;

    LiveRecords(StoreContents contents, List<Iterator<Entry>> sources, long nowMillis) {
      this.contents = contents;
      this.sources = sources;
      this.merged = MergingIterator.of(sources);
      this.nowMillis = nowMillis;
    }

    @Override
    public boolean hasNext() {
      if (next != null) return true;
      if (closed) return false;
      while (merged.hasNext()) {
        // An expired value reads as a tombstone of its version (docs/design.md, "Expiring values").
        Entry candidate = merged.next().readAt(nowMillis);
        if (!candidate.isTombstone()) {
          next = candidate;
          return true;
        }
      }
      close();
      return false;
    }

    @Override
    public Entry next() {
      if (!hasNext()) throw new NoSuchElementException();
      Entry result = next;
      next = null;
      return Objects.requireNonNull(result);
    }

    @Override
    public void close() {
      if (closed) return;
      closed = true;
      try {
        for (Iterator<Entry> source : sources) {
          if (source instanceof EntryIterator closeable) closeable.close();
        }
      } finally {
        contents.close();
      }
    }
  }
}
