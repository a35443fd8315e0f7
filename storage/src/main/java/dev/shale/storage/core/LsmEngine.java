package dev.shale.storage.core;

import dev.shale.storage.Checkpoint;
import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Entry;
import dev.shale.storage.HybridClock;
import dev.shale.storage.Keys;
import dev.shale.storage.MemoryRead;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.StorageException;
import dev.shale.storage.SyncMode;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.memtable.Memtable;
import dev.shale.storage.table.BlockCache;
import dev.shale.storage.table.BlockPins;
import dev.shale.storage.util.Closeables;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Shale's LSM-tree {@link Engine}: a write-ahead log, memtables, levelled tables and a manifest in
 * one data directory (docs/format.md). Thread safe; see {@link Engine} for the contract.
 *
 * <p>This class holds the public operations and the engine's lifetime (open, close); each part
 * lives in its own class: the write path in {@link WriteQueue} (stalls and slowdown in
 * {@link Backpressure}), the published read view in {@link CurrentView}, and the file-set
 * changes of the flush and compaction threads in {@link FileSetCommit}, through
 * {@link FlushHost} and {@link CompactionHost}.
 */
final class LsmEngine implements Engine {
  /*
   * Threads. Callers write and read; one flush thread turns frozen memtables into level-0 tables
   * (Flusher); one compaction thread merges tables down the levels (Compactor); in
   * SyncMode.INTERVAL one thread fsyncs the log periodically (IntervalSync).
   *
   * Locks. `lock`, the write lock, guards the writer queue (WriteQueue), the stall state
   * (Backpressure) and the replacement of the read view (CurrentView); conditions on it wake
   * writers when room is made, the flush thread when a memtable is frozen, and compact() when a
   * flush lands. FileSetCommit's manifest lock is taken before it, never while holding it. Reads
   * take no lock.
   */

  /** The longest close() waits for a flush in progress before giving up on it. */
  static final long CLOSE_FLUSH_WAIT_MILLIS = 30_000;
  /** The longest close() waits for a compaction to notice it should stop. */
  static final long CLOSE_COMPACTION_WAIT_MILLIS = 30_000;

  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());

  private final Path directory;
  private final EngineOptions options;
  private final HybridClock clock;
  private final DirectoryLock directoryLock;
  private final Manifest manifest;
  private final ActiveLog log;
  private final CurrentView view;
  private final Backpressure backpressure;
  private final WriteQueue writes;
  private final FlushHost flushes;
  private final Flusher flusher;
  private final Compactor compactor;
  // Only in SyncMode.INTERVAL: in ALWAYS each write group's leader fsyncs the log itself.
  private final Optional<IntervalSync> intervalSync;
  // Only when opening found the disk full: finishes opening's writes once there is room.
  private final Optional<PendingStart> pendingStart;
  private final DamageRegistry damage;
  private final DiskSpace disk;
  private final ActivitySummary activity;
  private final ValueLeases leases = new ValueLeases();
  // Every table's checked blocks; it counts their block reads since open (reads, scans, compactions).
  private final BlockCache blockCache;
  private final CountDownLatch closeFinished = new CountDownLatch(1);

  private LsmEngine(Path directory, EngineOptions options, Hooks hooks, HybridClock clock,
      DirectoryLock directoryLock, Recovery.Recovered recovered, BlockCache blockCache) {
    this.blockCache = blockCache;
    this.directory = directory;
    this.options = options;
    this.clock = clock;
    this.directoryLock = directoryLock;
    this.manifest = recovered.manifest();
    FileNumbers fileNumbers = recovered.fileNumbers();
    this.damage = recovered.damage();
    DiskSpace disk = new DiskSpace(options.env(), directory, options.diskReserveBytes());
    this.disk = disk;
    this.log = switch (recovered.writes()) {
      case Recovery.Writes.Done(var segment) -> new ActiveLog(segment, options.env());
      case Recovery.Writes.AwaitingSpace(var rest, var cause) -> {
        disk.openingFull(rest.undone(), cause);
        yield ActiveLog.awaitingSegment(rest.logFile(), options.env());
      }
    };
    Hooks.CrashPoints crashPoints = hooks.crashPoints();
    ReentrantLock lock = new ReentrantLock();
    Memtable first = new Memtable(options.memtableSizeBytes());
    this.view = new CurrentView(directory, lock,
        new ReadView(first, recovered.frozen(), recovered.levels()));
    first.release(); // the view holds it now, and the replayed memtables and the tables:
    recovered.frozen().forEach(f -> f.memtable().release());
    recovered.levels().all().forEach(SharedTable::release);
    this.backpressure = new Backpressure(options, view, lock, directory.toString());
    FileSetCommit fileSets = new FileSetCommit(options.vfs(),
        lock, view, manifest, fileNumbers, log, clock, backpressure, crashPoints, recovered.snapshot());
    String name = String.valueOf(directory.getFileName());
    this.activity = new ActivitySummary(directory.toString(), backpressure::writeStalls, options.env()::nanoTime);
    this.compactor = new Compactor(new CompactionHost(view, fileSets, damage, crashPoints), options,
        new CompactionRun(directory, options, fileNumbers, crashPoints, blockCache), hooks.compactionGate(),
        damage, disk, activity, "shale-compact-" + name);
    this.flushes = new FlushHost(lock, view, fileSets, backpressure, compactor, disk, options.env());
    this.flusher =
        new Flusher(flushes, directory, options, fileNumbers, hooks, activity, "shale-flush-" + name, blockCache);
    this.writes = new WriteQueue(
        directory, options, clock, fileNumbers, log, lock, view, backpressure, flushes, disk, fileSets);
    this.intervalSync = options.syncMode() == SyncMode.INTERVAL
        ? Optional.of(new IntervalSync(log, options.syncIntervalMillis(),
            e -> writes.poison("interval fsync of " + log.describe(), e), "shale-log-sync-" + name, options.env()))
        : Optional.empty();
    this.pendingStart = recovered.writes() instanceof Recovery.Writes.AwaitingSpace awaiting
        ? Optional.of(new PendingStart(awaiting.rest(), manifest, fileNumbers::allocate, new StartHost(), "shale-open-" + name, options.env()))
        : Optional.empty();
  }

  /** Opens (creating if needed) the store in {@code directory}, recovering its files. */
  static Engine open(Path directory, EngineOptions options) {
    return open(directory, options, Hooks.none());
  }

  static LsmEngine open(Path directory, EngineOptions options, Hooks hooks) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(options, "options");
    DirectoryLock directoryLock;
    try {
      options.vfs().createDirectories(directory);
      directoryLock = DirectoryLock.acquire(options.vfs(), directory);
    } catch (IOException e) {
      throw new StorageException("opening " + directory + " failed: " + e, e);
    }
    try {
      HybridClock clock = new HybridClock(options.env()::wallMillis);
      BlockCache blockCache = options.indexesInBlockCache()
          ? BlockCache.withResidentCharged(options.blockCacheBytes()) : BlockCache.ofCapacity(options.blockCacheBytes());
      Recovery.Recovered recovered = Recovery.run(directory, options, clock, blockCache);
      try {
        LsmEngine engine =
            new LsmEngine(directory, options, hooks, clock, directoryLock, recovered, blockCache);
        if (engine.pendingStart.isPresent()) {
          engine.pendingStart.get().start(engine.writes::refuseAfterDeathOf);
        } else {
          engine.startBackgroundWork();
        }
        engine.intervalSync.ifPresent(sync -> sync.start(engine.writes::refuseAfterDeathOf));
        return engine;
      } catch (RuntimeException | Error e) {
        recovered.closeQuietly();
        throw e;
      }
    } catch (IOException e) {
      Closeables.closeQuietly(directoryLock, directory.resolve(FileNames.LOCK), LOG);
      throw new StorageException("opening " + directory + " failed: " + e, e);
    } catch (RuntimeException e) {
      Closeables.closeQuietly(directoryLock, directory.resolve(FileNames.LOCK), LOG);
      throw e;
    }
  }

  @Override
  public @Nullable Entry get(byte[] key) {
    requireKey(key);
    ReadView current = view.retain();
    try {
      Entry found = current.get(key);
      // The clock is read only for an expiring value: most reads need no time.
      return found == null || !found.expires() ? found : found.readAt(nowMillis());
    } catch (CorruptionException e) {
      throw reported(e);
    } finally {
      current.release();
    }
  }

  @Override
  public @Nullable ReadRecord read(byte[] key) {
    requireKey(key);
    ReadView current = view.retain();
    try (BlockPins pins = new BlockPins()) {
      return answer(key, current.findWinner(key, pins));
    } catch (CorruptionException e) {
      throw reported(e);
    } finally {
      current.release();
    }
  }

  @Override
  public MemoryRead readFromMemory(byte[] key) {
    requireKey(key);
    ReadView current = view.retain();
    try (BlockPins pins = BlockPins.cachedOnly()) {
      ReadView.Winner winner = current.findWinner(key, pins);
      if (pins.missedCache()) return MemoryRead.NEEDS_DISK;
      blockCache.countCachedReads(pins.count());
      return new MemoryRead.Answered(answer(key, winner));
    } catch (CorruptionException e) {
      throw reported(e);
    } finally {
      current.release();
    }
  }

  // What read() answers for the winner found, while the view and the pins still hold its source.
  private @Nullable ReadRecord answer(byte[] key, ReadView.@Nullable Winner winner) {
    if (winner == null) return null;
    if (winner.record.expiresAtMillis() != Entry.NEVER && winner.record.expiredAt(nowMillis())) {
      return new ReadRecord.Copied(Entry.tombstone(key, winner.record.version()));
    }
    // A lent value takes its own reference on its source, while the view and pins still hold it.
    return leases.lendOrCopy(key, winner);
  }


  @Override
  public long put(byte[] key, byte[] value, long expiresAtMillis) {
    requireKey(key);
    requireValue(value);
    requireExpiry(value, expiresAtMillis);
    return writes.submit(key, value, PendingWrite.CLOCK_VERSION, expiresAtMillis);
  }

  @Override
  public long delete(byte[] key) {
    requireKey(key);
    return writes.submit(key, null, PendingWrite.CLOCK_VERSION, Entry.NEVER);
  }

  @Override
  public void write(byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    requireRecord(key, value, version);
    requireExpiry(value, expiresAtMillis);
    requireWithinReach(version);
    writes.submit(key, value, version, expiresAtMillis);
  }

  @Override
  public boolean tryWrite(byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    requireRecord(key, value, version);
    requireExpiry(value, expiresAtMillis);
    requireWithinReach(version);
    return writes.tryWriteAll(List.of(new Entry(key, version, value, expiresAtMillis)));
  }

  @Override
  public boolean tryWriteAll(List<Entry> records) {
    for (Entry record : records) {
      requireRecord(record.key(), record.value(), record.version());
      requireWithinReach(record.version());
    }
    return writes.tryWriteAll(records);
  }

  @Override
  public EntryIterator scan(
      byte[] startInclusive, byte @Nullable [] endExclusive, boolean includeTombstones) {
    if (startInclusive == null) {
      throw new IllegalArgumentException("scan needs a start key (an empty array starts at the first key)");
    }
    checkOpen();
    if (endExclusive != null && Keys.compare(endExclusive, startInclusive) <= 0) return ScanIterator.empty();
    // The iterator takes over this reference and releases it when closed or exhausted.
    ReadView current = view.retain();
    try {
      return new ScanIterator(this, current, startInclusive, endExclusive, includeTombstones);
    } catch (RuntimeException | Error e) {
      current.release();
      throw e;
    }
  }

  /**
   * Freezes the active memtable and waits for every frozen memtable to be flushed, then has the
   * compaction thread merge every table into the last level, and waits for that. Writes go on
   * meanwhile; what they add lands in level 0 as usual. Freezing waits for room like a write
   * does, so an overloaded engine answers with a WriteStallException; a table found corrupt makes
   * it throw a CorruptionException naming the file.
   */
  @Override
  public void compact() {
    fullCompaction(key -> false);
  }

  /** Like {@link #compact}, and the full compaction leaves out the records of the dropped keys. */
  @Override
  public void dropKeys(Predicate<byte[]> keys) {
    fullCompaction(keys);
  }

  private void fullCompaction(Predicate<byte[]> dropKeys) {
    checkOpen();
    writes.flushMemtables();
    try {
      compactor.requestFull(dropKeys).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageException("interrupted waiting for compact() of " + directory);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) throw failure;
      throw new StorageException("compact() of " + directory + " failed: " + e.getCause(), e);
    }
  }

  /**
   * Flushes every memtable, then links the tables of the view that holds their records. The
   * retained view pins its tables (CheckpointWriter's invariant); a flush or compaction that
   * publishes a newer view meanwhile changes nothing linked.
   */
  @Override
  public Checkpoint checkpoint(Path target) {
    Objects.requireNonNull(target, "target");
    checkOpen();
    if (options.vfs().exists(target)) throw new StorageException("checkpoint target " + target + " exists already");
    writes.flushMemtables();
    ReadView current = view.retain();
    try {
      return CheckpointWriter.write(options.vfs(), directory, current, clock.current(), target);
    } catch (IOException e) {
      throw new StorageException("checkpoint of " + directory + " to " + target + " failed: " + e, e);
    } finally {
      current.release();
    }
  }

  @Override
  public HybridClock clock() {
    return clock;
  }

  @Override
  public EngineStats stats() {
    checkOpen();
    ReadView current = view.get();
    long tableBytes = 0;
    for (SharedTable t : current.tables()) tableBytes += t.meta().fileSizeBytes();
    long frozenBytes = 0;
    for (FrozenMemtable f : current.frozen()) frozenBytes += f.memtable().sizeBytes();
    return new EngineStats(current.active().sizeBytes(), current.frozen().size(),
        current.tables().size(), tableBytes, flushes.flushes(), backpressure.writeStalls(),
        backpressure.writeStallRejections(), clock.current(), current.levels().tablesPerLevel(),
        compactor.compactions(), compactor.bytesRead(), compactor.bytesWritten(),
        backpressure.writeSlowdowns(), compactor.failures(), flushes.flushBytesWritten(), leases.open(),
        current.levels().bytesPerLevel(), log.forceCount(), log.forceNanos(), backpressure.writeStallNanos(),
        backpressure.writeSlowdownNanos(), blockCache.reads(), blockCache.hits(), blockCache.usedBytes(),
        disk.freeBytesNow(), disk.reserveBytes(), blockCache.heldBytes(), blockCache.residentBytes(), frozenBytes,
        blockCache.capacityBytes(), flushes.flushFailures());
  }

  @Override
  public EngineHealth health() {
    StorageException failure = writes.failure();
    if (view.isClosed()) return new EngineHealth("engine is closed", false, damage.list());
    if (failure != null) return new EngineHealth(failure.getMessage(), false, damage.list());
    String diskFull = disk.refusal();
    return new EngineHealth(diskFull, diskFull != null, damage.list());
  }

  /**
   * Refuses new writes (queued ones fail; a group being written completes), fsyncs the log, waits
   * (bounded) for a flush in progress, and releases the files. Frozen memtables not yet flushed
   * are safe in their logs and replayed at the next open. Idempotent; a concurrent second call
   * waits for the first.
   */
  @Override
  public void close() {
    if (!writes.beginClose()) {
      awaitCloseFinished();
      return;
    }
    try {
      finishClose();
    } finally {
      closeFinished.countDown();
    }
  }

  Path directory() {
    return directory;
  }

  /** Throws the "engine is closed" StorageException once close() has begun. */
  void checkOpen() {
    if (view.isClosed()) throw view.closedException();
  }

  /** The view reads use now (tests inspect what it pins). */
  ReadView currentView() {
    return view.get();
  }

  /** fsyncs issued on the log since open (a test counts group commits with it). */
  long logForceCount() {
    return log.forceCount();
  }

  /** The current view, retained: the caller releases it. */
  ReadView retainViewForTest() {
    return view.retain();
  }

  /** The tables a point read may consult now: every L0 table plus one per non-empty level. */
  int readAmplification() {
    Levels levels = view.get().levels();
    int n = levels.level(0).size();
    for (int level = 1; level < Levels.COUNT; level++) {
      if (!levels.level(level).isEmpty()) n++;
    }
    return n;
  }

  // The flush and compaction threads: at open, or, on a disk that was full then, once opening's
  // writes are done (PendingStart).
  private void startBackgroundWork() {
    flusher.start(writes::refuseAfterDeathOf);
    compactor.start(writes::refuseAfterDeathOf);
  }

  /** How the engine takes the log segment that opening on a full disk could create at last. */
  private final class StartHost implements PendingStart.Host {
    @Override
    public boolean started(LogWriter first) {
      if (!writes.startLog(first)) return false;
      startBackgroundWork();
      LOG.log(Level.INFO, directory + ": the disk has room for opening's writes (" + first.path().getFileName()
          + ", " + FileNames.manifest(manifest.fileNumber()) + "): flushes and compactions start, and writes are"
          + " taken while the disk keeps its reserve free");
      return true;
    }

    @Override
    public void failed(IOException cause) {
      writes.poison("opening's writes (" + log.describe() + " and a new manifest)", cause);
    }
  }

  private void finishClose() {
    List<Exception> failures = new ArrayList<>();
    // First: it may yet start the flush and compaction threads, which are stopped below.
    pendingStart.ifPresent(PendingStart::stop);
    intervalSync.ifPresent(IntervalSync::stop);
    try {
      log.close(writes.failure() == null);
    } catch (IOException e) {
      failures.add(writes.poison("fsync of " + log.describe() + " at close", e));
    }
    compactor.stop(CLOSE_COMPACTION_WAIT_MILLIS);
    flusher.awaitStop(CLOSE_FLUSH_WAIT_MILLIS);
    try {
      manifest.close();
    } catch (IOException e) {
      failures.add(e);
    }
    activity.logRemaining();
    view.releaseAtClose();
    try {
      directoryLock.close();
    } catch (IOException e) {
      failures.add(e);
    }
    if (!failures.isEmpty()) {
      Exception first = failures.getFirst();
      StorageException failure =
          new StorageException("closing " + directory + " failed: " + first, first);
      failures.stream().skip(1).forEach(failure::addSuppressed);
      throw failure;
    }
    LOG.log(Level.INFO, directory + " closed");
  }

  private void awaitCloseFinished() {
    boolean interrupted = false;
    while (true) {
      try {
        closeFinished.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  // ---- validation and helpers ----

  private static void requireKey(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length == 0 || key.length > Keys.MAX_KEY_BYTES) {
      throw new IllegalArgumentException(
          "key must be 1.." + Keys.MAX_KEY_BYTES + " bytes, not " + key.length);
    }
  }

  // A record with the caller's version (write, tryWrite): value null is a tombstone.
  private static void requireRecord(byte[] key, byte @Nullable [] value, long version) {
    requireKey(key);
    if (value != null) requireValue(value);
    if (version < 0) throw new IllegalArgumentException("version must be >= 0: " + version);
  }

  private static void requireExpiry(byte @Nullable [] value, long expiresAtMillis) {
    if (expiresAtMillis < 0) throw new IllegalArgumentException("expiresAtMillis must be >= 0: " + expiresAtMillis);
    if (value == null && expiresAtMillis != Entry.NEVER) {
      throw new IllegalArgumentException("a tombstone does not expire: expiresAtMillis " + expiresAtMillis);
    }
  }

  // The wall clock that expires values: the one behind versions and tombstone expiry.
  long nowMillis() {
    return options.env().wallMillis();
  }

  // A caller's version the clock would not follow (HybridClock#observe) is refused, not stored:
  // stored, it would win over every later write of its key.
  private void requireWithinReach(long version) {
    long ahead = clock.aheadOfWallMillis(version);
    if (ahead > HybridClock.MAX_AHEAD_MILLIS) {
      throw new IllegalArgumentException("version " + version + " is " + ahead + " ms ahead of this engine's wall clock (at most "
          + HybridClock.MAX_AHEAD_MILLIS + " ms)");
    }
  }

  private static void requireValue(byte[] value) {
    Objects.requireNonNull(value, "value");
    if (value.length > MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(
          "value must be at most " + MAX_VALUE_BYTES + " bytes, not " + value.length);
    }
  }

  private CorruptionException reported(CorruptionException e) {
    damage.report(e.file(), e.problem(), DamageRegistry.TABLE_REMEDY);
    return e;
  }
}
