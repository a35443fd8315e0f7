package dev.shale.storage.core;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.HybridClock;
import dev.shale.storage.StorageException;
import dev.shale.storage.SyncMode;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.memtable.Memtable;
import dev.shale.storage.util.Closeables;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The engine's write path: the writer queue, its leader's group commit, and the freezing of a
 * full memtable (LevelDB's DBImpl::Write and MakeRoomForWrite). Also the engine's refusal of
 * writes after a log failure (poison).
 *
 * <p>Thread safety: every method may be called from any thread; the queue and everything a
 * leader changes are guarded by the engine's write lock, which each method takes itself.
 */
final class WriteQueue {
  /*
   * Write path (LevelDB's DBImpl::Write). Writers join a queue under `lock`. The writer at the
   * head is the leader: it makes room (freezing a full memtable, or stalling when flushes lag),
   * takes the queued writes behind it into a group of up to LogWriter.GROUP_BYTES, stamps their
   * versions, and then - with the lock released, so more writers can queue - appends the group
   * with one write() call, fsyncs it in SyncMode.ALWAYS (one fsync for the whole group: group
   * commit), and inserts it into the active memtable. Then it wakes the group and the next head.
   * Only a leader touches the log and swaps memtables, and there is one leader at a time.
   */

  /** The most places a write group's list is made with; a larger group grows it. */
  private static final int MAX_GROUP_PREALLOCATION = 64;
  /** A memtable freezes between (1 - 1/this) and 1 times memtableSizeBytes ({@link #nextFreezeSize}). */
  private static final int FREEZE_JITTER_FRACTION = 8;
  /** A segment switch at least this slow is logged: writers waited for it. */
  static final long SLOW_SWITCH_MILLIS = 100;

  private static final System.Logger LOG = System.getLogger(WriteQueue.class.getName());

  private final Path directory;
  private final EngineOptions options;
  private final HybridClock clock;
  private final FileNumbers fileNumbers;
  private final ActiveLog log;
  private final CurrentView view;
  private final Backpressure backpressure;
  private final FlushHost flushes;
  private final DiskSpace disk;
  private final FileSetCommit fileSets; // records each new segment before it takes writes

  private final ReentrantLock lock; // the engine's write lock
  private final Condition queueDrained;
  private final ArrayDeque<PendingWrite> writers = new ArrayDeque<>(); // guarded by lock
  private long freezeAtBytes; // guarded by lock: the active memtable or its segment freezes at this size
  private final AtomicReference<StorageException> poison = new AtomicReference<>();

  WriteQueue(Path directory, EngineOptions options, HybridClock clock, FileNumbers fileNumbers,
      ActiveLog log, ReentrantLock lock, CurrentView view, Backpressure backpressure,
      FlushHost flushes, DiskSpace disk, FileSetCommit fileSets) {
    this.directory = directory;
    this.options = options;
    this.clock = clock;
    this.fileNumbers = fileNumbers;
    this.log = log;
    this.lock = lock;
    this.queueDrained = lock.newCondition();
    this.view = view;
    this.backpressure = backpressure;
    this.flushes = flushes;
    this.disk = disk;
    this.fileSets = fileSets;
    this.freezeAtBytes = nextFreezeSize();
  }

  /**
   * Writes one record (value null: a tombstone), expiring at {@code expiresAtMillis}
   * (Entry.NEVER: it does not), and returns its version.
   */
  long submit(byte[] key, byte @Nullable [] value, long callerVersion, long expiresAtMillis) {
    PendingWrite w = PendingWrite.write(key, value, callerVersion, expiresAtMillis, backpressure.deadlineFromNow());
    lock.lock();
    try {
      checkWritable();
      writers.addLast(w);
      awaitTurn(w);
      if (!w.done) leadGroup(w);
      if (w.failure != null) throw w.failure;
      return w.version;
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@link dev.shale.storage.Engine#tryWriteAll} (and tryWrite, a group of one): writes every
   * record as one group, led by this thread, only if nothing would make it wait.
   */
  boolean tryWriteAll(List<Entry> records) {
    if (records.isEmpty()) return true;
    if (options.syncMode() != SyncMode.INTERVAL || !lock.tryLock()) return false;
    try {
      checkWritable();
      // Each condition under which the blocking path could wait, checked under the lock that a
      // queued writer, a stall, a freeze or a flush landing (which adds an L0 table) all take:
      // none can appear before this write's group is taken below.
      ReadView current = view.get();
      if (!writers.isEmpty() || backpressure.isStalled() || activeIsFull(current)
          || backpressure.slowsDown(current)) {
        return false;
      }
      List<PendingWrite> ours = pendingWrites(records);
      // The group the leader takes is all of `ours`: the queue was empty, later writers queue
      // behind, and takeGroup stops early only past GROUP_BYTES. Only a failure before the
      // group is taken (a log failure found by another thread meanwhile) leaves some queued.
      if (ours.size() > 1 && PendingWrite.logBytes(ours) > LogWriter.GROUP_BYTES) return false;
      writers.addAll(ours);
      PendingWrite leader = ours.getFirst();
      leadGroup(leader);
      if (leader.failure != null) {
        failUntaken(ours, leader.failure);
        throw leader.failure;
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  // A write of tryWriteAll left in the queue would have no thread to lead it, and would block
  // every writer after it: each leaves the queue with the leader's failure.
  private void failUntaken(List<PendingWrite> ours, RuntimeException failure) {
    for (PendingWrite p : ours) {
      if (p.done) continue;
      writers.remove(p); // at the head: the group before it completed from there
      p.done = true;
      p.failure = new StorageException(messageOf(failure), failure);
    }
    wakeNextLeader();
  }

  private List<PendingWrite> pendingWrites(List<Entry> records) {
    long deadlineNanos = backpressure.deadlineFromNow();
    List<PendingWrite> writes = new ArrayList<>(records.size());
    for (Entry record : records) writes.add(PendingWrite.write(record.key(), record.value(), record.version(), record.expiresAtMillis(), deadlineNanos));
    return writes;
  }

  // Freezes the active memtable through the writer queue (only a leader may swap memtables),
  // then waits until every memtable frozen so far is in a table.
  void flushMemtables() {
    PendingWrite request = PendingWrite.freezeRequest(backpressure.deadlineFromNow());
    lock.lock();
    try {
      checkWritable();
      writers.addLast(request);
      awaitTurn(request);
      if (!request.done) leadFreeze(request);
      if (request.failure != null) throw request.failure;
      flushes.awaitFlushed(view.get().frozen(), poison::get);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Closes the engine for writes: false if it was closed already. Queued writes fail in turn
   * ("engine is closed"); a group being written completes before this returns.
   */
  boolean beginClose() {
    lock.lock();
    try {
      if (view.isClosed()) return false;
      view.markClosed();
      backpressure.roomMade();
      flushes.wakeWaiters();
      PendingWrite head = writers.peekFirst();
      if (head != null) head.wake();
      while (!writers.isEmpty()) queueDrained.awaitUninterruptibly();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Gives the log the segment that opening on a full disk could not create then (PendingStart),
   * under the lock writers check it under: false (not taken) if the engine closed meanwhile.
   */
  boolean startLog(LogWriter first) {
    lock.lock();
    try {
      if (view.isClosed()) return false;
      log.start(first);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** The failure that made the engine refuse writes, or null while it takes them. */
  @Nullable StorageException failure() {
    return poison.get();
  }

  /**
   * A background thread (flush, compaction, interval sync) ended by a throwable it does not
   * handle, an OutOfMemoryError say. Without it memtables are no longer flushed (or tables
   * compacted, or the log synced): writes would stall until their deadline, or level 0 grow
   * without bound, while the store looked healthy. So writes are refused from now on, naming the
   * cause, and the writers waiting for room are woken to be refused too; reads go on. Only a
   * restart brings the thread back, the log replaying what no table holds (RocksDB turns
   * read-only on a background error the same way).
   */
  void refuseAfterDeathOf(Thread thread, Throwable cause) {
    poison("the background thread " + thread.getName(), cause);
    lock.lock();
    try {
      backpressure.roomMade(); // stalled writers look again and find the refusal
      flushes.wakeWaiters(); // and so do waiters for a flush
    } finally {
      lock.unlock();
    }
  }

  /** Refuses every later write, naming {@code cause}; logs the first such failure. */
  StorageException poison(String what, Throwable cause) {
    StorageException failure = new StorageException(
        what + " failed: " + cause + "; the engine accepts no more writes", cause);
    if (poison.compareAndSet(null, failure)) {
      // With the stack: an engine stops taking writes once in its life, and the operator (or a
      // bug report) needs to know where the failure came from.
      LOG.log(Level.ERROR, directory + ": " + failure.getMessage(), cause);
    }
    return failure;
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

  // Waits until a leader has written w, or w heads the queue. While the engine is stalled, a
  // write not yet taken into a group gives up at its own deadline.
  private void awaitTurn(PendingWrite w) {
    boolean interrupted = false;
    try {
      while (!w.done && writers.peekFirst() != w) {
        try {
          if (backpressure.isStalled() && !w.taken) {
            backpressure.countStall(w);
            long remaining = w.deadlineNanos - options.env().nanoTime();
            if (remaining <= 0) {
              writers.remove(w);
              throw backpressure.stallRejection(w);
            }
            options.env().awaitNanos(w.turn(lock), remaining);
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
      disk.admitWrite(PendingWrite.logBytes(group));
      backpressure.slowDownIfBehind(group);
      checkWritable();
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
        String stopReason = backpressure.stopReason(current);
        if (stopReason == null) {
          freezeActive();
          return;
        }
        refuseIfFlushesFindDiskFull();
        backpressure.startStall(stopReason, writers);
        backpressure.countStall(leader);
        long remaining = leader.deadlineNanos - options.env().nanoTime();
        if (remaining <= 0) throw backpressure.stallRejection(leader);
        try {
          backpressure.awaitRoom(remaining);
        } catch (InterruptedException e) {
          interrupted = true;
        }
        checkWritable();
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  // A stall ends when a flush (or a compaction) lands; one that found the disk full lands only
  // once space is freed, so waiting for it would only turn a full disk into a stall timeout. The
  // write is refused instead, as one whose append found the disk full: nothing was written.
  // Flushes failing this way wake stalled writers (Backpressure.flushFailed), so none waits out
  // its deadline here. Once a reading of the free space (at most every DiskSpace.PROBE_NANOS
  // after the flush's failure) shows room, the flush retries at once instead of after its
  // backoff (up to Flusher.MAX_RETRY_MILLIS), and the write waits for it as for any flush:
  // refusing it, and the writes after it, with the space already freed was the defect
  // FlushAfterDiskFullTest shows. If that retry fails too, the disk counts as full again until
  // the next reading (FlushHost.flushFailed), and the write is refused.
  private void refuseIfFlushesFindDiskFull() {
    IOException noSpace = backpressure.flushFindsDiskFull();
    if (noSpace == null) return;
    if (!disk.hasRoomForFlush()) throw disk.flushFull(noSpace);
    flushes.retryNow();
  }

  // A segment full of overwrites of a few keys leaves the memtable small; bounding the segment
  // too keeps replay at open bounded.
  private boolean activeIsFull(ReadView current) {
    return current.active().sizeBytes() >= freezeAtBytes || log.sizeBytes() >= freezeAtBytes;
  }

  /**
   * Where the next memtable freezes: a size drawn from the top eighth below memtableSizeBytes.
   * Not the size itself because the replicas of a key range take the same writes in the same
   * order: at one fixed size they froze, flushed and compacted within ~100 ms of one another,
   * and where they share a machine or a disk those passes piled up into one latency spike
   * (issue 14, docs/perf/cluster.md). Drawn anew for each memtable, the freeze points drift apart
   * within a few memtables; the memory bound stays memtableSizeBytes.
   */
  private long nextFreezeSize() {
    long size = options.memtableSizeBytes();
    return size - ThreadLocalRandom.current().nextLong(size / FREEZE_JITTER_FRACTION + 1);
  }

  /**
   * Freezes the active memtable, starting a new log segment; the flush thread takes it. Writers
   * wait meanwhile: creating the segment costs two fsyncs (its header, the directory), recording
   * it in the manifest one (docs/format.md, "Manifest"), and the switch one more (the previous
   * segment), so a switch that takes {@link #SLOW_SWITCH_MILLIS} or more is logged with its
   * parts, as a slow disk would be reported by etcd's "slow fdatasync".
   */
  private void freezeActive() {
    long startNanos = options.env().nanoTime();
    long number = fileNumbers.allocate();
    Path file = directory.resolve(FileNames.log(number));
    LogWriter next;
    try {
      next = LogWriter.create(options.vfs(), file, number);
    } catch (IOException e) {
      deleteQuietly(file);
      if (DiskSpace.isNoSpace(e)) throw disk.full(file, e);
      throw new StorageException("creating log segment " + file + " failed: " + e, e);
    }
    long createdNanos = options.env().nanoTime();
    recordNewSegment(next);
    long recordedNanos = options.env().nanoTime();
    long frozenLogNumber = log.number();
    try {
      log.switchTo(next);
    } catch (IOException e) {
      Closeables.closeQuietly(next, next.path(), LOG);
      throw poison("fsync of " + FileNames.log(frozenLogNumber) + " before switching segments", e);
    }
    Memtable fresh = new Memtable(options.memtableSizeBytes());
    freezeAtBytes = nextFreezeSize();
    // Read again: the view may have changed while recordNewSegment let the lock go (a flush landed).
    view.publish(view.get().withFrozenActive(frozenLogNumber, fresh));
    fresh.release(); // the view holds it now
    flushes.frozenAdded();
    long millis = TimeUnit.NANOSECONDS.toMillis(options.env().nanoTime() - startNanos);
    if (millis >= SLOW_SWITCH_MILLIS) {
      LOG.log(Level.WARNING, "switching log segments took " + millis + " ms, writers waiting (creating "
          + FileNames.log(number) + " " + TimeUnit.NANOSECONDS.toMillis(createdNanos - startNanos)
          + " ms, recording it in the manifest " + TimeUnit.NANOSECONDS.toMillis(recordedNanos - createdNanos)
          + " ms, fsync of " + FileNames.log(frozenLogNumber) + " "
          + TimeUnit.NANOSECONDS.toMillis(options.env().nanoTime() - recordedNanos) + " ms): a slow disk");
    }
  }

  /*
   * Records segment `next` in the manifest before any write goes to it (FileSetCommit
   * #recordNewSegment), letting the write lock go meanwhile: the manifest lock is taken before
   * the write lock, never while holding it, and writers may queue during the fsync. Safe as in
   * appendAndApply: only a leader changes the log or the active memtable, and this thread leads;
   * the view may change (a flush or compaction landing), so the caller reads it again.
   *
   * If the record fails, `next` is closed but kept on disk: the failed append may yet be durable
   * and list it, and a listed segment missing at open is refused as damage. It holds no record,
   * so the next open deletes it; the write fails, and the next one tries a new segment.
   */
  private void recordNewSegment(LogWriter next) {
    boolean recorded;
    lock.unlock();
    try {
      recorded = fileSets.recordNewSegment(next.number());
    } catch (IOException e) {
      Closeables.closeQuietly(next, next.path(), LOG);
      if (DiskSpace.isNoSpace(e)) throw disk.full("the manifest (recording " + next.path().getFileName() + ")", e);
      throw new StorageException("recording log segment " + next.path() + " in the manifest failed: " + e, e);
    } catch (RuntimeException e) {
      Closeables.closeQuietly(next, next.path(), LOG);
      throw e;
    } finally {
      lock.lock();
    }
    if (!recorded) {
      Closeables.closeQuietly(next, next.path(), LOG); // the engine closed: nothing names it
      deleteQuietly(next.path());
      throw view.closedException();
    }
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
      p.version = version;
      entries.add(new Entry(p.key, version, p.value, p.expiresAtMillis));
    }
    return entries;
  }

  // The one stretch of a write without the lock: only the leader is here, and the log segment
  // and active memtable cannot change under it, since only a leader changes them.
  private void appendAndApply(List<Entry> entries) {
    Memtable memtable = view.get().active();
    long sizeBefore = log.sizeBytes();
    lock.unlock();
    try {
      try {
        log.append(entries);
      } catch (IOException e) {
        throw appendFailed(sizeBefore, e);
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

  // A full disk is the one append failure the log survives: the segment is cut back to where the
  // group began, so it stays a clean prefix of whole records (a torn record followed by later
  // ones would fail the next open), and writes are refused until there is room. Any other
  // failure, or a failed cut, leaves the tail unknown: no more writes.
  private StorageException appendFailed(long sizeBefore, IOException cause) {
    if (!DiskSpace.isNoSpace(cause)) return poison("appending to " + log.describe(), cause);
    try {
      log.truncateTo(sizeBefore);
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
      return poison("appending to " + log.describe() + " (and cutting back the failed append)", cause);
    }
    return disk.full(log.describe(), cause);
  }

  // The group is the head of the queue, in order. Completing it hands the lead to the next.
  // failure: why the group failed, or null if it was written.
  private void complete(List<PendingWrite> group, @Nullable RuntimeException failure) {
    PendingWrite leader = group.getFirst();
    for (PendingWrite p : group) {
      PendingWrite head = writers.pollFirst();
      if (head != p) throw new IllegalStateException("write group is not the head of the queue");
      p.done = true;
      if (failure != null) {
        p.failure = p == leader ? failure : new StorageException(messageOf(failure), failure);
      }
      if (p != leader) p.wake();
    }
    wakeNextLeader();
  }

  private void wakeNextLeader() {
    PendingWrite next = writers.peekFirst();
    if (next != null) next.wake();
    else queueDrained.signalAll();
  }

  // A failure without a message (a bug's IllegalStateException, say) is named by its class.
  private static String messageOf(RuntimeException failure) {
    String message = failure.getMessage();
    return message != null ? message : failure.toString();
  }

  private void checkWritable() {
    if (view.isClosed()) throw view.closedException();
    StorageException failure = poison.get();
    if (failure != null) {
      throw new StorageException(
          "engine refuses writes after an earlier failure: " + failure.getMessage(), failure);
    }
    // Opened on a full disk, and no room yet for the new segment: nothing to append to.
    if (!log.isStarted()) throw disk.refusedUntilOpened();
  }

  private void deleteQuietly(Path file) {
    try {
      options.vfs().delete(file);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "deleting " + file + " failed: " + e);
    }
  }
}
