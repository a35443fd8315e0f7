package dev.shale.storage.core;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Entry;
import dev.shale.storage.HybridClock;
import dev.shale.storage.Keys;
import dev.shale.storage.StorageException;
import dev.shale.storage.SyncMode;
import dev.shale.storage.WriteStallException;
import dev.shale.storage.io.ChannelOpener;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.memtable.Memtable;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Shale's LSM-tree {@link Engine}: a write-ahead log, memtables, levelled tables and a manifest in
 * one data directory (docs/format.md). Thread safe; see {@link Engine} for the contract.
 */
public final class LsmEngine implements Engine {
  /*
   * Threads. Callers write and read; one flush thread turns frozen memtables into level-0 tables
   * (Flusher); one compaction thread merges tables down the levels (Compactor); in
   * SyncMode.INTERVAL one thread fsyncs the log periodically (IntervalSync).
   *
   * File-set changes. A flush and a compaction each build a manifest snapshot from the current
   * view, commit it and publish the matching view, all under `manifestLock`, so the two threads'
   * commits never interleave (a snapshot built before the other's commit would undo it). The
   * write lock is taken only for the short build and publish steps inside, never for an fsync,
   * and never while waiting for `manifestLock`: writers and readers do not wait for a compaction.
   *
   * Write path (LevelDB's DBImpl::Write). Writers join a queue under `lock`. The writer at the
   * head is the leader: it makes room (freezing a full memtable, or stalling when flushes lag),
   * takes the queued writes behind it into a group of up to LogWriter.GROUP_BYTES, stamps their
   * versions, and then - with the lock released, so more writers can queue - appends the group
   * with one write() call, fsyncs it in SyncMode.ALWAYS (one fsync for the whole group: group
   * commit), and inserts it into the active memtable. Then it wakes the group and the next head.
   * Only a leader touches the log and swaps memtables, and there is one leader at a time.
   *
   * Read path. `view` holds an immutable ReadView (active memtable, frozen memtables, tables),
   * replaced whole under `lock` when a memtable is frozen or a flush lands. A read retains the
   * current view (a reference count, no lock) and searches it; tables are unmapped only when
   * the last view listing them is released.
   *
   * Memory bound. A memtable is frozen once it, or its log segment, holds memtableSizeBytes; the
   * write that crosses the line may add one group (<= GROUP_BYTES, or one record of up to
   * MAX_VALUE_BYTES + MAX_KEY_BYTES). When maxImmutableMemtables frozen memtables wait for their
   * flush and the active one is full, writers wait up to writeStallTimeoutMillis and then get a
   * WriteStallException with nothing written. So memtables hold at most
   * (maxImmutableMemtables + 1) * (memtableSizeBytes + one group) bytes, and the log writer one
   * 1 MiB buffer; writers waiting in the queue hold only their own arrays.
   *
   * Read amplification bound. A full memtable is not frozen while L0 tables + frozen memtables
   * reach l0StopTrigger; a flush turns one into the other and only compaction lowers the sum, so
   * a point read consults at most 1 + l0StopTrigger memtables and L0 tables, plus one table in
   * each deeper level. From l0SlowdownTrigger L0 tables on, each write group first sleeps a
   * little (growing with the count), so writers slow down smoothly before they would stop.
   */

  /** The longest close() waits for a flush in progress before giving up on it. */
  static final long CLOSE_FLUSH_WAIT_MILLIS = 30_000;
  /** The longest close() waits for a compaction to notice it should stop. */
  static final long CLOSE_COMPACTION_WAIT_MILLIS = 30_000;
  /** The write rate allowed at the slowdown trigger; it halves with each L0 table above it. */
  static final long SLOWDOWN_BASE_BYTES_PER_SECOND = 32L << 20;
  /** The longest one write group sleeps, so a big group never waits near the stall timeout. */
  static final long MAX_SLOWDOWN_MILLIS = 1_000;
  /** The most places a write group's list is made with; a larger group grows it. */
  private static final int MAX_GROUP_PREALLOCATION = 64;

  private static final System.Logger LOG = System.getLogger(LsmEngine.class.getName());

  private final Path directory;
  private final EngineOptions options;
  private final HybridClock clock;
  private final DirectoryLock directoryLock;
  private final Manifest manifest;
  private final FileNumbers fileNumbers;
  private final ActiveLog log;
  private final ChannelOpener opener;
  private final Flusher flusher;
  private final Compactor compactor;
  private final Hooks.CrashPoints crashPoints;
  private final IntervalSync intervalSync; // null in SyncMode.ALWAYS
  private final StallLog stallLog;
  private final DamageRegistry damage;
  private final long stallTimeoutNanos;

  // Taken before `lock`, never while holding it: serializes "build snapshot, commit, publish".
  private final ReentrantLock manifestLock = new ReentrantLock();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition roomMade = lock.newCondition();
  private final Condition flushLanded = lock.newCondition();
  private final Condition frozenAdded = lock.newCondition();
  private final Condition queueDrained = lock.newCondition();
  private final ArrayDeque<PendingWrite> writers = new ArrayDeque<>(); // guarded by lock
  private boolean stalled; // guarded by lock
  private String stallReason = ""; // guarded by lock
  private volatile boolean closed; // written under lock
  private boolean viewReleased; // guarded by lock: set once close has let the view go
  private final CountDownLatch closeFinished = new CountDownLatch(1);
  private final AtomicReference<StorageException> poison = new AtomicReference<>();
  private final AtomicReference<ReadView> view; // replaced under lock
  private volatile Exception lastFlushFailure;

  private final LongAdder flushes = new LongAdder();
  private final LongAdder writeStalls = new LongAdder();
  private final LongAdder writeStallRejections = new LongAdder();
  private final LongAdder writeSlowdowns = new LongAdder();
  private final LongAdder flushBytesWritten = new LongAdder();

  private LsmEngine(Path directory, EngineOptions options, Hooks hooks, HybridClock clock,
      DirectoryLock directoryLock, Recovery.Recovered recovered) {
    this.directory = directory;
    this.options = options;
    this.clock = clock;
    this.directoryLock = directoryLock;
    this.manifest = recovered.manifest();
    this.fileNumbers = recovered.fileNumbers();
    this.damage = recovered.damage();
    this.log = new ActiveLog(recovered.log());
    this.opener = hooks.opener();
    this.crashPoints = hooks.crashPoints();
    this.stallLog = new StallLog(directory.toString());
    // Capped so that arrival + timeout never overflows a nanoTime difference.
    this.stallTimeoutNanos = Math.min(
        TimeUnit.MILLISECONDS.toNanos(options.writeStallTimeoutMillis()), Long.MAX_VALUE / 4);
    Memtable first = new Memtable(options.memtableSizeBytes());
    this.view = new AtomicReference<>(new ReadView(first, List.of(), Levels.of(recovered.tables())));
    first.release(); // the view holds it now, and the tables:
    recovered.tables().forEach(SharedTable::release);
    String name = String.valueOf(directory.getFileName());
    this.flusher = new Flusher(
        new FlushHost(), directory, options, fileNumbers, hooks, "shale-flush-" + name);
    this.compactor = new Compactor(new CompactionHost(), options,
        new CompactionRun(directory, options, fileNumbers, crashPoints), hooks.compactionGate(),
        "shale-compact-" + name);
    this.intervalSync = options.syncMode() == SyncMode.INTERVAL
        ? new IntervalSync(log, options.syncIntervalMillis(),
            e -> poison("interval fsync of " + log.describe(), e), "shale-log-sync-" + name)
        : null;
  }

  /** Opens (creating if needed) the store in {@code directory}, recovering its files. */
  public static Engine open(Path directory, EngineOptions options) {
    return open(directory, options, Hooks.none());
  }

  static LsmEngine open(Path directory, EngineOptions options, Hooks hooks) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(options, "options");
    DirectoryLock directoryLock = null;
    try {
      Files.createDirectories(directory);
      directoryLock = DirectoryLock.acquire(directory);
      HybridClock clock = new HybridClock(options.wallClockMillis());
      Recovery.Recovered recovered = Recovery.run(directory, options, clock, hooks.opener());
      try {
        LsmEngine engine =
            new LsmEngine(directory, options, hooks, clock, directoryLock, recovered);
        engine.flusher.start();
        engine.compactor.start();
        if (engine.intervalSync != null) engine.intervalSync.start();
        return engine;
      } catch (RuntimeException | Error e) {
        recovered.closeQuietly();
        throw e;
      }
    } catch (IOException e) {
      closeQuietly(directoryLock);
      throw new StorageException("opening " + directory + " failed: " + e, e);
    } catch (RuntimeException e) {
      closeQuietly(directoryLock);
      throw e;
    }
  }

  @Override
  public Entry get(byte[] key) {
    requireKey(key);
    ReadView current = retainView();
    try {
      return current.get(key);
    } finally {
      current.release();
    }
  }

  @Override
  public long put(byte[] key, byte[] value) {
    requireKey(key);
    requireValue(value);
    return submit(key, value, PendingWrite.CLOCK_VERSION);
  }

  @Override
  public long delete(byte[] key) {
    requireKey(key);
    return submit(key, null, PendingWrite.CLOCK_VERSION);
  }

  @Override
  public void write(byte[] key, byte[] value, long version) {
    requireRecord(key, value, version);
    submit(key, value, version);
  }

  @Override
  public boolean tryWrite(byte[] key, byte[] value, long version) {
    requireRecord(key, value, version);
    if (options.syncMode() != SyncMode.INTERVAL || !lock.tryLock()) return false;
    try {
      checkWritable();
      // Each condition under which the blocking path could wait, checked under the lock that a
      // queued writer, a stall, a freeze or a flush landing (which adds an L0 table) all take:
      // none can appear before this write's group is taken below.
      ReadView current = view.get();
      if (!writers.isEmpty() || stalled || activeIsFull(current)
          || level0Count(current) >= options.l0SlowdownTrigger()) {
        return false;
      }
      PendingWrite w = new PendingWrite(key, value, version, System.nanoTime() + stallTimeoutNanos);
      writers.addLast(w);
      leadGroup(w); // a group of one: nobody else is queued
      if (w.failure != null) throw w.failure;
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public EntryIterator scan(byte[] startInclusive, byte[] endExclusive, boolean includeTombstones) {
    if (startInclusive == null) {
      throw new IllegalArgumentException("scan needs a start key (an empty array starts at the first key)");
    }
    checkOpen();
    if (endExclusive != null && Keys.compare(endExclusive, startInclusive) <= 0) return ScanIterator.empty();
    // The iterator takes over this reference and releases it when closed or exhausted.
    ReadView current = retainView();
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
    if (closed) throw closedException();
    flushMemtables();
    try {
      compactor.requestFull().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageException("interrupted waiting for compact() of " + directory);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) throw failure;
      throw new StorageException("compact() of " + directory + " failed: " + e.getCause(), e);
    }
  }

  @Override
  public HybridClock clock() {
    return clock;
  }

  @Override
  public EngineStats stats() {
    if (closed) throw closedException();
    ReadView current = view.get();
    long tableBytes = 0;
    for (SharedTable t : current.tables()) tableBytes += t.meta().fileSizeBytes();
    return new EngineStats(current.active().sizeBytes(), current.frozen().size(),
        current.tables().size(), tableBytes, flushes.sum(), writeStalls.sum(),
        writeStallRejections.sum(), clock.current(), current.levels().tablesPerLevel(),
        compactor.compactions(), compactor.bytesRead(), compactor.bytesWritten(),
        writeSlowdowns.sum(), compactor.failures(), flushBytesWritten.sum());
  }

  @Override
  public EngineHealth health() {
    StorageException failure = poison.get();
    String refusal = closed ? "engine is closed" : failure == null ? null : failure.getMessage();
    return new EngineHealth(refusal, false, damage.list());
  }

  /**
   * Refuses new writes (queued ones fail; a group being written completes), fsyncs the log, waits
   * (bounded) for a flush in progress, and releases the files. Frozen memtables not yet flushed
   * are safe in their logs and replayed at the next open. Idempotent; a concurrent second call
   * waits for the first.
   */
  @Override
  public void close() {
    if (!beginClose()) {
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
    if (closed) throw closedException();
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
    return retainView();
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

  // Freezes the active memtable through the writer queue (only a leader may swap memtables),
  // then waits until every memtable frozen so far is in a table.
  private void flushMemtables() {
    PendingWrite request = new PendingWrite(
        null, null, PendingWrite.CLOCK_VERSION, System.nanoTime() + stallTimeoutNanos);
    lock.lock();
    try {
      checkWritable();
      writers.addLast(request);
      awaitTurn(request);
      if (!request.done) leadFreeze(request);
      if (request.failure != null) throw request.failure;
      List<FrozenMemtable> toFlush = view.get().frozen();
      while (!closed && view.get().frozen().stream().anyMatch(toFlush::contains)) {
        flushLanded.awaitUninterruptibly();
      }
      if (closed) throw closedException();
    } finally {
      lock.unlock();
    }
  }

  private void leadFreeze(PendingWrite request) {
    try {
      checkWritable();
      makeRoomForWrite(request);
      complete(List.of(request), null);
    } catch (RuntimeException e) {
      complete(List.of(request), e);
    }
  }
  // ---- write path ----

  private long submit(byte[] key, byte[] value, long callerVersion) {
    PendingWrite w = new PendingWrite(
        key, value, callerVersion, System.nanoTime() + stallTimeoutNanos);
    lock.lock();
    try {
      checkWritable();
      writers.addLast(w);
      awaitTurn(w);
      if (!w.done) leadGroup(w);
      if (w.failure != null) throw w.failure;
      return w.entry.version();
    } finally {
      lock.unlock();
    }
  }

  // Waits until a leader has written w, or w heads the queue. While the engine is stalled, a
  // write not yet taken into a group gives up at its own deadline.
  private void awaitTurn(PendingWrite w) {
    boolean interrupted = false;
    try {
      while (!w.done && writers.peekFirst() != w) {
        try {
          if (stalled && !w.taken) {
            countStall(w);
            long remaining = w.deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
              writers.remove(w);
              throw stallRejection(w);
            }
            w.turn(lock).awaitNanos(remaining);
          } else {
            w.turn(lock).await();
          }
        } catch (InterruptedException e) {
          interrupted = true; // a write in the queue finishes either way; the flag is kept
        }
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  private void leadGroup(PendingWrite leader) {
    List<PendingWrite> group = List.of(leader);
    try {
      checkWritable();
      makeRoomForWrite(leader);
      group = takeGroup();
      slowDownIfBehind(group);
      appendAndApply(stampVersions(group));
      complete(group, null);
    } catch (RuntimeException e) {
      complete(group, e);
    }
  }

  // A freeze request (compact()) freezes any non-empty memtable; a write only a full one.
  private void makeRoomForWrite(PendingWrite leader) {
    boolean interrupted = false;
    try {
      while (true) {
        ReadView current = view.get();
        boolean needsRoom = leader.isFreezeRequest()
            ? !current.active().isEmpty() : activeIsFull(current);
        if (!needsRoom) return;
        String stopReason = stopReason(current);
        if (stopReason == null) {
          freezeActive(current);
          return;
        }
        startStall(stopReason);
        countStall(leader);
        long remaining = leader.deadlineNanos - System.nanoTime();
        if (remaining <= 0) throw stallRejection(leader);
        try {
          roomMade.awaitNanos(remaining);
        } catch (InterruptedException e) {
          interrupted = true;
        }
        checkWritable();
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  private static int level0Count(ReadView current) {
    return current.levels().level(0).size();
  }

  // Why a full memtable may not be frozen now, or null if it may.
  private String stopReason(ReadView current) {
    if (current.frozen().size() >= options.maxImmutableMemtables()) {
      return current.frozen().size() + " frozen memtables wait for their flush (the limit) and"
          + " the active one is full";
    }
    int level0 = level0Count(current);
    if (level0 + current.frozen().size() >= options.l0StopTrigger()) {
      return "level 0 holds " + level0 + " tables and " + current.frozen().size()
          + " memtables wait for their flush (stop trigger " + options.l0StopTrigger()
          + "): compaction is behind";
    }
    return null;
  }

  // RocksDB's delayed write rate, simplified: from l0SlowdownTrigger L0 tables on, the leader
  // sleeps as long as its group's bytes take at a rate that starts at
  // SLOWDOWN_BASE_BYTES_PER_SECOND and halves per table above the trigger (at most
  // MAX_SLOWDOWN_MILLIS per group), with the lock released; its group waits behind it. Writers
  // thus converge on what compaction sustains, long before the stop trigger refuses them.
  private void slowDownIfBehind(List<PendingWrite> group) {
    int over = level0Count(view.get()) - options.l0SlowdownTrigger();
    if (over < 0) return;
    long bytes = 0;
    for (PendingWrite p : group) bytes += p.logBytes();
    long rate = Math.max(1, SLOWDOWN_BASE_BYTES_PER_SECOND >> Math.min(over, 40));
    long nanos = Math.min(TimeUnit.MILLISECONDS.toNanos(MAX_SLOWDOWN_MILLIS),
        (long) (bytes * 1e9 / rate));
    writeSlowdowns.increment();
    long deadline = System.nanoTime() + nanos;
    boolean interrupted = false;
    try {
      // Other signals on roomMade (a flush landing) do not cut the sleep short.
      for (long left = nanos; left > 0 && !closed; left = deadline - System.nanoTime()) {
        try {
          roomMade.awaitNanos(left);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
    checkWritable();
  }

  // A segment full of overwrites of a few keys leaves the memtable small; bounding the segment
  // too keeps replay at open bounded.
  private boolean activeIsFull(ReadView current) {
    return current.active().sizeBytes() >= options.memtableSizeBytes()
        || log.sizeBytes() >= options.memtableSizeBytes();
  }

  /** Freezes the active memtable, starting a new log segment; the flush thread takes it. */
  private void freezeActive(ReadView current) {
    long number = fileNumbers.allocate();
    Path file = directory.resolve(FileNames.log(number));
    LogWriter next;
    try {
      next = LogWriter.create(file, number, opener);
    } catch (IOException e) {
      deleteQuietly(file);
      throw new StorageException("creating log segment " + file + " failed: " + e, e);
    }
    long frozenLogNumber = log.number();
    try {
      log.switchTo(next);
    } catch (IOException e) {
      closeQuietly(next);
      throw poison("fsync of " + FileNames.log(frozenLogNumber) + " before switching segments", e);
    }
    Memtable fresh = new Memtable(options.memtableSizeBytes());
    publish(current.withFrozenActive(frozenLogNumber, fresh));
    fresh.release(); // the view holds it now
    frozenAdded.signalAll();
  }

  private List<PendingWrite> takeGroup() {
    // Sized for the queue (a lone writer's group is one): a default list is garbage on every write.
    List<PendingWrite> group = new ArrayList<>(Math.min(writers.size(), MAX_GROUP_PREALLOCATION));
    long bytes = 0;
    for (PendingWrite p : writers) {
      if (p.isFreezeRequest()) break; // it leads on its own, in its turn
      long size = p.logBytes();
      if (!group.isEmpty() && bytes + size > LogWriter.GROUP_BYTES) break;
      p.taken = true;
      group.add(p);
      bytes += size;
    }
    return group;
  }

  private List<Entry> stampVersions(List<PendingWrite> group) {
    List<Entry> entries = new ArrayList<>(group.size());
    for (PendingWrite p : group) {
      long version;
      if (p.callerVersion == PendingWrite.CLOCK_VERSION) {
        version = clock.next();
      } else {
        clock.observe(p.callerVersion);
        version = p.callerVersion;
      }
      p.entry = new Entry(p.key, version, p.value);
      entries.add(p.entry);
    }
    return entries;
  }

  // The one stretch of a write without the lock: only the leader is here, and the log segment
  // and active memtable cannot change under it, since only a leader changes them.
  private void appendAndApply(List<Entry> entries) {
    Memtable memtable = view.get().active();
    lock.unlock();
    try {
      try {
        log.append(entries);
      } catch (IOException e) {
        throw poison("appending to " + log.describe(), e);
      }
      if (options.syncMode() == SyncMode.ALWAYS) {
        try {
          log.sync();
        } catch (IOException e) {
          throw poison("fsync of " + log.describe(), e);
        }
      }
      for (Entry entry : entries) memtable.add(entry);
    } finally {
      lock.lock();
    }
  }

  // The group is the head of the queue, in order. Completing it hands the lead to the next.
  private void complete(List<PendingWrite> group, RuntimeException failure) {
    PendingWrite leader = group.getFirst();
    for (PendingWrite p : group) {
      PendingWrite head = writers.pollFirst();
      if (head != p) throw new IllegalStateException("write group is not the head of the queue");
      p.done = true;
      if (failure != null) {
        p.failure = p == leader ? failure : new StorageException(failure.getMessage(), failure);
      }
      if (p != leader) p.wake();
    }
    PendingWrite next = writers.peekFirst();
    if (next != null) next.wake();
    else queueDrained.signalAll();
  }

  private void checkWritable() {
    if (closed) throw closedException();
    StorageException failure = poison.get();
    if (failure != null) {
      throw new StorageException(
          "engine refuses writes after an earlier failure: " + failure.getMessage(), failure);
    }
  }

  private StorageException poison(String what, IOException cause) {
    StorageException failure = new StorageException(
        what + " failed: " + cause + "; the engine accepts no more writes", cause);
    if (poison.compareAndSet(null, failure)) {
      // With the stack: an engine stops taking writes once in its life, and the operator (or a
      // bug report) needs to know where the failure came from.
      LOG.log(Level.ERROR, directory + ": " + failure.getMessage(), cause);
    }
    return failure;
  }

  // ---- backpressure ----

  private void startStall(String reason) {
    stallReason = reason;
    if (stalled) return;
    stalled = true;
    stallLog.started(reason);
    // Queued writers switch to waiting with their own deadlines.
    for (PendingWrite p : writers) p.wake();
  }

  private void endStall() {
    if (!stalled) return;
    stalled = false;
    stallLog.ended();
  }

  private void countStall(PendingWrite w) {
    if (w.stallCounted) return;
    w.stallCounted = true;
    writeStalls.increment();
  }

  private WriteStallException stallRejection(PendingWrite w) {
    writeStallRejections.increment();
    long waitedMillis =
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - (w.deadlineNanos - stallTimeoutNanos));
    Exception flushFailure = lastFlushFailure;
    return new WriteStallException("write stalled " + waitedMillis + " ms and gave up: "
        + stallReason + "; nothing was written"
        + (flushFailure == null ? "" : "; last flush failure: " + flushFailure));
  }

  // ---- read path ----

  private ReadView retainView() {
    while (true) {
      if (closed) throw closedException();
      ReadView current = view.get();
      // Fails only for a view replaced (and released) since the read above: retry on the new.
      if (current.tryRetain()) return current;
    }
  }

  private void publish(ReadView next) {
    ReadView previous = view.getAndSet(next);
    previous.release();
  }

  // ---- close ----

  private boolean beginClose() {
    lock.lock();
    try {
      if (closed) return false;
      closed = true;
      endStall();
      roomMade.signalAll();
      frozenAdded.signalAll();
      flushLanded.signalAll();
      PendingWrite head = writers.peekFirst();
      if (head != null) head.wake();
      // Each queued write fails in turn ("engine is closed"); a group being written completes.
      while (!writers.isEmpty()) queueDrained.awaitUninterruptibly();
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void finishClose() {
    List<Exception> failures = new ArrayList<>();
    if (intervalSync != null) intervalSync.stop();
    try {
      log.close(poison.get() == null);
    } catch (IOException e) {
      failures.add(poison("fsync of " + log.describe() + " at close", e));
    }
    compactor.stop(CLOSE_COMPACTION_WAIT_MILLIS);
    flusher.awaitStop(CLOSE_FLUSH_WAIT_MILLIS);
    try {
      manifest.close();
    } catch (IOException e) {
      failures.add(e);
    }
    releaseView();
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

  // A flush or compaction whose thread outlived its close deadline must not publish after this.
  private void releaseView() {
    lock.lock();
    try {
      viewReleased = true;
      view.get().release();
    } finally {
      lock.unlock();
    }
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

  private StorageException closedException() {
    return new StorageException("engine is closed: " + directory);
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
  private static void requireRecord(byte[] key, byte[] value, long version) {
    requireKey(key);
    if (value != null) requireValue(value);
    if (version < 0) throw new IllegalArgumentException("version must be >= 0: " + version);
  }

  private static void requireValue(byte[] value) {
    Objects.requireNonNull(value, "value");
    if (value.length > MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(
          "value must be at most " + MAX_VALUE_BYTES + " bytes, not " + value.length);
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) return;
    try {
      closeable.close();
    } catch (Exception e) {
      LOG.log(Level.WARNING, "closing " + closeable + " failed: " + e);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "deleting " + file + " failed: " + e);
    }
  }

  /** The engine as the flush thread sees it. */
  private final class FlushHost implements Flusher.Host {
    @Override
    public FrozenMemtable awaitOldestFrozen() throws InterruptedException {
      lock.lock();
      try {
        while (!closed) {
          List<FrozenMemtable> frozen = view.get().frozen();
          if (!frozen.isEmpty()) {
            FrozenMemtable oldest = frozen.getLast();
            oldest.memtable().retain(); // safe: the current view holds it, and views change under lock
            return oldest;
          }
          frozenAdded.await();
        }
        return null;
      } finally {
        lock.unlock();
      }
    }

    @Override
    public boolean commit(FrozenMemtable flushed, SharedTable table) throws IOException {
      manifestLock.lock();
      try {
        ManifestSnapshot snapshot = snapshotAfterFlush(flushed, table.meta());
        if (snapshot == null) return false;
        manifest.commit(snapshot, fileNumbers::allocate);
        crashPoints.reached("flush.afterManifestCommit");
        install(flushed, table);
        compactor.signal();
        return true;
      } finally {
        manifestLock.unlock();
      }
    }

    private ManifestSnapshot snapshotAfterFlush(FrozenMemtable flushed, TableMeta table) {
      lock.lock();
      try {
        if (closed) return null;
        ReadView current = view.get();
        List<TableMeta> tables = new ArrayList<>();
        tables.add(table);
        for (SharedTable t : current.tables()) tables.add(t.meta());
        // log_number: the oldest segment still holding records that are in no table.
        long logNumber = log.number();
        for (FrozenMemtable f : current.frozen()) {
          if (f != flushed) logNumber = Math.min(logNumber, f.logNumber());
        }
        return new ManifestSnapshot(
            fileNumbers.peek(), logNumber, clock.current(), tables);
      } finally {
        lock.unlock();
      }
    }

    private void install(FrozenMemtable flushed, SharedTable table) {
      lock.lock();
      try {
        if (viewReleased) return; // the manifest names the table; the next open uses it
        publish(view.get().withFlushed(flushed, table));
        flushes.increment();
        flushBytesWritten.add(table.sizeBytes());
        lastFlushFailure = null;
        endStall();
        roomMade.signalAll();
        flushLanded.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void flushFailed(Exception failure) {
      lastFlushFailure = failure;
    }

    @Override
    public boolean awaitRetry(long millis) throws InterruptedException {
      long remaining = TimeUnit.MILLISECONDS.toNanos(millis);
      lock.lock();
      try {
        while (!closed && remaining > 0) remaining = frozenAdded.awaitNanos(remaining);
        return !closed;
      } finally {
        lock.unlock();
      }
    }
  }

  /** The engine as the compaction thread sees it. */
  private final class CompactionHost implements Compactor.Host {
    @Override
    public ReadView retainView() {
      while (!closed) {
        ReadView current = view.get();
        if (current.tryRetain()) return current;
      }
      return null;
    }

    @Override
    public boolean commit(Compaction compaction, List<SharedTable> outputs) throws IOException {
      manifestLock.lock();
      try {
        ManifestSnapshot snapshot = snapshotAfterCompaction(compaction, outputs);
        if (snapshot == null) return false;
        manifest.commit(snapshot, fileNumbers::allocate);
        crashPoints.reached("compaction.afterManifestCommit");
        install(compaction, outputs);
        crashPoints.reached("compaction.afterInstall");
        return true;
      } finally {
        manifestLock.unlock();
      }
    }

    private ManifestSnapshot snapshotAfterCompaction(
        Compaction compaction, List<SharedTable> outputs) {
      lock.lock();
      try {
        if (closed) return null;
        ReadView current = view.get();
        Levels next = current.levels().withReplaced(compaction.allInputs(), outputs);
        List<TableMeta> tables = next.all().stream().map(SharedTable::meta).toList();
        long logNumber = log.number();
        for (FrozenMemtable f : current.frozen()) logNumber = Math.min(logNumber, f.logNumber());
        return new ManifestSnapshot(fileNumbers.peek(), logNumber, clock.current(), tables);
      } finally {
        lock.unlock();
      }
    }

    // The inputs' files go once no view or scan pins them; a moved table's file stays.
    private void install(Compaction compaction, List<SharedTable> outputs) {
      lock.lock();
      try {
        // Still published while close waits for this thread, so the inputs go now; after close
        // let the view go, the next open deletes them.
        if (viewReleased) return;
        publish(view.get().withCompacted(compaction.allInputs(), outputs));
        if (!compaction.isTrivialMove()) compaction.allInputs().forEach(SharedTable::markObsolete);
        endStall();
        roomMade.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }
}
