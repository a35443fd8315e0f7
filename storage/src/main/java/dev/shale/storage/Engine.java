package dev.shale.storage;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A durable, ordered key-value store on an LSM tree: the only door to Shale's storage.
 *
 * <p>Thread safety: every method may be called from any number of threads at once.
 *
 * <p>Arrays: the key and value arrays passed to a write belong to the engine from the call on,
 * and the caller must not change them afterwards: the engine keeps them as they are rather than
 * copy them, so a 16 MiB value crosses the heap once. The arrays of an {@link Entry} the engine
 * returns belong to the entry: callers must not change them either.
 *
 * <p>Keys are 1 to {@link Keys#MAX_KEY_BYTES} bytes and values at most {@link #MAX_VALUE_BYTES};
 * anything else is refused with IllegalArgumentException, and so is a negative version.
 *
 * <p>Versions: every record carries a version (see {@link Versions}). A read returns the record
 * with the highest version of its key, whatever order the writes arrived in; a tombstone is a
 * record like any other, so a newer tombstone hides an older value and a newer value beats an
 * older tombstone. {@link #put} and {@link #delete} take their version from the engine's clock,
 * which is always ahead of every version the engine has stored; {@link #write} takes the
 * caller's version (replication applies a coordinator's version that way).
 *
 * <p>Durability: a write method returns once its record is in the write-ahead log as the
 * configured {@link SyncMode} requires.
 *
 * <p>Failures: methods throw {@link StorageException} (unchecked). {@link WriteStallException}
 * means "overloaded, retry later" and nothing was written; {@link CorruptionException} names the
 * file whose bytes failed their checksum. Once a write to the log or an fsync fails, every later
 * write fails too: a store that cannot know what is on disk stops pretending.
 */
public interface Engine extends AutoCloseable {
  /** Values longer than this are refused with IllegalArgumentException. */
  int MAX_VALUE_BYTES = 256 << 20;

  /**
   * Opens (creating if needed) the store in {@code directory}, replaying its log. On a disk too
   * full for opening's new manifest and log segment it opens for reads: writes throw
   * {@link DiskFullException} until those fit, which the engine sees by itself (docs/design.md,
   * "A full disk").
   */
  static Engine open(Path directory, EngineOptions options) {
    return InstalledEngineFactory.get().open(directory, options);
  }

  /**
   * Values of at least this many bytes are lent by {@link #read}, smaller ones copied. A copy
   * costs an allocation and a memcpy in proportion to the value, a lease a fixed price (a few
   * objects, and the table or memtable it pins, below): at 64 KiB a copy takes a few
   * microseconds and the pinning starts to pay; below it, copies are cheap and die young, while
   * leases of many small values held for many answers would pin files and memtables out of
   * proportion to the bytes.
   */
  int LEND_MIN_VALUE_BYTES = 64 << 10;

  /**
   * The newest record of {@code key} (possibly a tombstone), or null if the store has none. A
   * value whose expiry has come is returned as a tombstone of its version.
   */
  @Nullable Entry get(byte[] key);

  /**
   * The record {@link #get} returns (the same winner, by the same version rules), or null; but a
   * value of at least {@link #LEND_MIN_VALUE_BYTES} is not copied: it comes back as a
   * {@link ReadRecord.Lent}, a read-only view of the value where it lies, in the table block the
   * read loaded (its checksum verified first, as every read does) or in a memtable's memory. Smaller
   * values and tombstones come back copied ({@link ReadRecord.Copied}). For a server that writes
   * large values to a socket without copying them to the heap first.
   *
   * <p>Lifetime of a lease: until the record is closed, it pins the memory the value lies in: its
   * table block's (whatever happens to the table: a compaction may replace and delete it), or its
   * memtable's (a flushed memtable is freed only then). A pinned block or memtable takes memory
   * beyond the engine's own bounds, so a caller must close each record promptly (once its
   * bytes are written) and bound how many it holds at once. Closing the engine does not end the
   * leases: the blocks and memtables they pin are released by their last close. {@link EngineStats#valueLeases}
   * counts the leases open.
   *
   * <p>The default implementation copies every value ({@link #get}): an engine that lends
   * overrides it.
   */
  default @Nullable ReadRecord read(byte[] key) {
    Entry entry = get(key);
    return entry == null ? null : new ReadRecord.Copied(entry);
  }

  /**
   * {@link #read} of {@code key} if memory alone can answer it, without waiting for the disk: the
   * memtables, and table blocks in the block cache (filters and indexes stay in memory), or else
   * {@link MemoryRead#NEEDS_DISK} at the first block it would have to read, having read none.
   * For a caller that must not block, an event loop: it answers most reads itself and hands only
   * the rest to a thread that may wait. The answer is the one {@link #read} gives, lease and all.
   *
   * <p>Releasing what the read held may still, rarely, close or delete a table file a compaction
   * replaced, if this read was the last to hold it: as any read's release may.
   *
   * <p>The default implementation answers nothing from memory.
   */
  default MemoryRead readFromMemory(byte[] key) {
    return MemoryRead.NEEDS_DISK;
  }

  /** Stores {@code value} under {@code key} with a fresh version, and returns that version. */
  default long put(byte[] key, byte[] value) {
    return put(key, value, Entry.NEVER);
  }

  /**
   * Stores {@code value} under {@code key} with a fresh version, expiring at wall-clock time
   * {@code expiresAtMillis} (milliseconds since the epoch; {@link Entry#NEVER}: it does not), and
   * returns that version. From its expiry on, the value reads as a tombstone of its version: get
   * and read return that tombstone, scans skip it (or return it, with tombstones), and compaction
   * drops it as it drops a tombstone (docs/design.md, "Expiring values").
   */
  long put(byte[] key, byte[] value, long expiresAtMillis);

  /** Stores a tombstone for {@code key} with a fresh version, and returns that version. */
  long delete(byte[] key);

  /**
   * Stores a record with the caller's version: a value, or a tombstone when {@code value} is
   * null. A record whose version is not higher than the stored one loses every later read, as
   * the version rules say; it is still logged. Advances the engine's clock past {@code version}.
   *
   * @throws IllegalArgumentException if {@code version} is further ahead of the engine's wall
   *     clock than {@link HybridClock#MAX_AHEAD_MILLIS}: stored, it would win over every later
   *     write of its key, and the clock cannot follow it
   */
  default void write(byte[] key, byte @Nullable [] value, long version) {
    write(key, value, version, Entry.NEVER);
  }

  /**
   * {@link #write}, of a value expiring at {@code expiresAtMillis} (see {@link #put(byte[],
   * byte[], long)}; {@link Entry#NEVER}: it does not, and so for every tombstone). An expiry
   * already past is stored all the same: the record reads as a tombstone of its version, which
   * still hides older records of its key (a replica given a late copy of an expired write).
   *
   * @throws IllegalArgumentException for a tombstone with an expiry, or a negative expiry, and as
   *     {@link #write}
   */
  void write(byte[] key, byte @Nullable [] value, long version, long expiresAtMillis);

  /**
   * {@link #write}, but only if the engine can do it at once, without waiting for anything: no
   * other write in progress (it would have to queue behind it), no write slowdown or stall, no
   * memtable to switch (that creates a log segment), and no fsync (in {@link SyncMode#ALWAYS}
   * it always declines). Returns false, having written nothing, when it would have waited; the
   * caller then calls {@link #write} from a thread that may block. Whether it declines is a
   * matter of timing: callers must be ready for either answer.
   *
   * <p>For a server that runs cheap writes on its event loops, where a blocked thread would hold
   * up every connection it serves, and hands the others to a pool. Such a write still costs one
   * write() of the log to the page cache, which the kernel may slow when it is short of clean
   * pages.
   */
  default boolean tryWrite(byte[] key, byte @Nullable [] value, long version) {
    return tryWrite(key, value, version, Entry.NEVER);
  }

  /** {@link #tryWrite}, of a value expiring at {@code expiresAtMillis} as {@link #write(byte[], byte[], long, long)} says. */
  default boolean tryWrite(byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    return false;
  }

  /**
   * {@link #tryWrite} of several records as one group, all or none: each {@link Entry} is
   * written as {@link #write} would write it (its version the caller's; a null value a
   * tombstone), in list order, with one append to the log for the group. Returns false, having
   * written none of them, when the engine would have waited, or when the group is larger than
   * one append of the log takes (then write them one by one); throws, having written none,
   * when a record is invalid (IllegalArgumentException) or the append fails.
   *
   * <p>For a server whose event loop collects the writes of many connections in one turn: one
   * lock and one write() of the log for all of them, where {@link #tryWrite} costs one each.
   */
  default boolean tryWriteAll(List<Entry> records) {
    return false;
  }

  /**
   * The engine's hybrid logical clock: ahead of every version the engine has stored (recovery
   * observes the versions it replays, so also after a restart with a wall clock that went back)
   * and of every version written with {@link #write}. A replication coordinator stamps its writes
   * with {@code clock().next()} and {@linkplain HybridClock#observe observes} the versions other
   * nodes send, so one node has one clock.
   */
  HybridClock clock();

  /**
   * The records with {@code startInclusive <= key < endExclusive} ({@code endExclusive} null: to
   * the last key), in key order, the winning record of each key only. Tombstones are returned only
   * when {@code includeTombstones} (a cluster-wide scan needs them to hide older values held by
   * other replicas); skipping them costs no extra I/O. A value whose expiry has come (by the
   * clock read once when the scan starts) is a tombstone here too. The iterator sees every write that
   * completed before the call, and may or may not see writes that complete while it runs.
   */
  EntryIterator scan(byte[] startInclusive, byte @Nullable [] endExclusive, boolean includeTombstones);

  /**
   * Compacts the whole store, blocking until done: afterwards every record that another record
   * of its key overrides is gone, and so is every tombstone past its grace period; the tables it
   * replaced are deleted by then, unless a scan still open holds them. For benchmarks and
   * operators; background compaction needs no call.
   */
  void compact();

  /**
   * Drops, on this store alone and without tombstones, every record of the keys {@code keys}
   * accepts that was written before the call: a {@link #compact} whose merge leaves them out.
   * Blocks until done; {@code keys} is called on the compaction thread, once per key.
   *
   * <p>For a cluster node that no longer replicates those keys (docs/design.md, "Handoff"): a
   * tombstone would be a record like any other, which a node that replicates the key again later
   * would hold and which could win over the key's live value; dropping the records leaves
   * nothing. A record of those keys written during the call may or may not survive it.
   */
  void dropKeys(Predicate<byte[]> keys);

  /**
   * Writes a consistent checkpoint of the store to the new directory {@code target} (as
   * RocksDB's Checkpoint): flushes the memtables, then hard-links every live table into
   * {@code target} and writes a manifest naming exactly those tables (docs/format.md,
   * "Checkpoints"). The directory opens with {@link #open} as a store holding every write that
   * completed before the call, and may hold writes that complete during it (those a flush took
   * along; never a later write without every earlier one). {@code target} must be on the store's
   * file system (hard links) and must not exist; it is created whole or not at all. Writes and
   * reads go on meanwhile; a compaction may run, but the tables being linked stay on disk.
   *
   * <p>The links keep their tables' disk space after compaction deletes the store's own names:
   * delete a checkpoint once it is copied away.
   *
   * @throws StorageException if {@code target} exists, or a flush, link or fsync fails
   *     (nothing is left at {@code target} then)
   */
  default Checkpoint checkpoint(Path target) {
    throw new UnsupportedOperationException("this engine does not make checkpoints");
  }

  /** Counters and sizes for logs and metrics. */
  EngineStats stats();

  /**
   * Whether the engine serves fully: writes refused (and whether that clears by itself) and the
   * damaged files it serves around. Cheap; safe to call on every status probe.
   */
  EngineHealth health();

  /**
   * Makes every acknowledged write durable (fsyncs the log), waits for running flushes, and
   * releases the files. Later calls of any other method throw {@link StorageException}.
   */
  @Override
  void close();
}
