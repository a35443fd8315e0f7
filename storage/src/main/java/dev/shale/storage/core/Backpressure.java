package dev.shale.storage.core;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.WriteStallException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * When writers must slow down or stop because flushes or compactions lag: the stop rule, the
 * slowdown sleep, the stall state and its rejections, and the signal that room was made.
 *
 * <p>Thread safety: every method but the counters' is called with the engine's write lock held.
 */
final class Backpressure {
  /*
   * Memory bound. A memtable is frozen once it, or its log segment, holds its freeze size, at most
   * memtableSizeBytes (WriteQueue.nextFreezeSize: at least 7/8 of it, drawn per memtable); the
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

  /** The write rate allowed at the slowdown trigger; it halves with each L0 table above it. */
  static final long SLOWDOWN_BASE_BYTES_PER_SECOND = 32L << 20;
  /** The longest one write group sleeps, so a big group never waits near the stall timeout. */
  static final long MAX_SLOWDOWN_MILLIS = 1_000;

  private final EngineOptions options;
  private final CurrentView view;
  private final StallLog stallLog;
  private final long stallTimeoutNanos;
  // Signalled whenever a flush or compaction changed the file set, and at close.
  private final Condition roomMade;
  private boolean stalled; // guarded by the engine's lock
  private String stallReason = ""; // guarded by the engine's lock
  // The last failed flush attempt; null while none failed since a flush last landed.
  private volatile @Nullable Exception lastFlushFailure;

  private final LongAdder writeStalls = new LongAdder();
  private final LongAdder writeStallRejections = new LongAdder();
  private final LongAdder writeSlowdowns = new LongAdder();
  private final LongAdder writeSlowdownNanos = new LongAdder();
  // Stall time: the periods that ended, and when the one under way began (0: none). The start is
  // written under the engine's lock and read by stats() without it.
  private final LongAdder endedStallNanos = new LongAdder();
  private volatile long stallStartNanos;

  Backpressure(EngineOptions options, CurrentView view, ReentrantLock lock, String directory) {
    this.options = options;
    this.view = view;
    this.stallLog = new StallLog(directory, options.env());
    this.roomMade = lock.newCondition();
    // Capped so that arrival + timeout never overflows a nanoTime difference.
    this.stallTimeoutNanos = Math.min(
        TimeUnit.MILLISECONDS.toNanos(options.writeStallTimeoutMillis()), Long.MAX_VALUE / 4);
  }

  /** The deadline of a write arriving now, should it stall. */
  long deadlineFromNow() {
    return options.env().nanoTime() + stallTimeoutNanos;
  }

  boolean isStalled() {
    return stalled;
  }

  // Why a full memtable may not be frozen now, or null if it may.
  @Nullable String stopReason(ReadView current) {
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

  /** Whether level 0 is at the slowdown trigger, where a write would first sleep. */
  boolean slowsDown(ReadView current) {
    return level0Count(current) >= options.l0SlowdownTrigger();
  }

  // RocksDB's delayed write rate, simplified: from l0SlowdownTrigger L0 tables on, the leader
  // sleeps as long as its group's bytes take at a rate that starts at
  // SLOWDOWN_BASE_BYTES_PER_SECOND and halves per table above the trigger (at most
  // MAX_SLOWDOWN_MILLIS per group), with the lock released; its group waits behind it. Writers
  // thus converge on what compaction sustains, long before the stop trigger refuses them.
  void slowDownIfBehind(List<PendingWrite> group) {
    int over = level0Count(view.get()) - options.l0SlowdownTrigger();
    if (over < 0) return;
    long bytes = PendingWrite.logBytes(group);
    long rate = Math.max(1, SLOWDOWN_BASE_BYTES_PER_SECOND >> Math.min(over, 40));
    long nanos = Math.min(TimeUnit.MILLISECONDS.toNanos(MAX_SLOWDOWN_MILLIS),
        (long) (bytes * 1e9 / rate));
    writeSlowdowns.increment();
    writeSlowdownNanos.add(nanos);
    long deadline = options.env().nanoTime() + nanos;
    boolean interrupted = false;
    try {
      // Other signals on roomMade (a flush landing) do not cut the sleep short.
      for (long left = nanos; left > 0 && !view.isClosed(); left = deadline - options.env().nanoTime()) {
        try {
          options.env().awaitNanos(roomMade, left);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits up to {@code nanos} for a flush or compaction to make room (or for close). May return
   * early (a signal meant for another change, or a spurious wakeup): the caller looks again.
   */
  // WaitNotInLoop: the loop is the caller's (WriteQueue.makeRoomForWrite), which re-reads the view,
  // the stop rule, its deadline and close after every return, so an early one only costs a look.
  @SuppressWarnings("WaitNotInLoop")
  void awaitRoom(long nanos) throws InterruptedException {
    options.env().awaitNanos(roomMade, nanos);
  }

  /** A flush or compaction changed the file set (or the engine closes): writers look again. */
  void roomMade() {
    endStall();
    roomMade.signalAll();
  }

  void startStall(String reason, Iterable<PendingWrite> queued) {
    stallReason = reason;
    if (stalled) return;
    stalled = true;
    long now = options.env().nanoTime();
    stallStartNanos = now == 0 ? 1 : now; // 0 means none (nanoTime may be 0 or negative)
    stallLog.started(reason);
    // Queued writers switch to waiting with their own deadlines.
    for (PendingWrite p : queued) p.wake();
  }

  private void endStall() {
    if (!stalled) return;
    stalled = false;
    endedStallNanos.add(options.env().nanoTime() - stallStartNanos);
    stallStartNanos = 0;
    stallLog.ended();
  }

  void countStall(PendingWrite w) {
    if (w.stallCounted) return;
    w.stallCounted = true;
    writeStalls.increment();
  }

  WriteStallException stallRejection(PendingWrite w) {
    writeStallRejections.increment();
    long waitedMillis =
        TimeUnit.NANOSECONDS.toMillis(options.env().nanoTime() - (w.deadlineNanos - stallTimeoutNanos));
    Exception flushFailure = lastFlushFailure;
    return new WriteStallException("write stalled " + waitedMillis + " ms and gave up: "
        + stallReason + "; nothing was written"
        + (flushFailure == null ? "" : "; last flush failure: " + flushFailure));
  }

  /**
   * A flush attempt failed: stall messages name it until a flush lands, and stalled writers look
   * again, since one that found the disk full refuses them ({@link #flushFindsDiskFull}).
   */
  void flushFailed(Exception failure) {
    lastFlushFailure = failure;
    roomMade.signalAll();
  }

  /**
   * The last flush attempt's failure if it found the disk full (and no flush landed since), else
   * null. Such a flush lands only once space is freed, however long a writer waits for it.
   */
  @Nullable IOException flushFindsDiskFull() {
    return lastFlushFailure instanceof IOException e && DiskSpace.isNoSpace(e) ? e : null;
  }

  void flushLanded() {
    lastFlushFailure = null;
  }

  long writeStalls() {
    return writeStalls.sum();
  }

  long writeStallRejections() {
    return writeStallRejections.sum();
  }

  long writeSlowdowns() {
    return writeSlowdowns.sum();
  }

  /** The time the slowdowns made writes sleep, in nanoseconds (each group's sleep counted once). */
  long writeSlowdownNanos() {
    return writeSlowdownNanos.sum();
  }

  /**
   * The time the engine spent stalled (writes waiting for room), the stall under way included,
   * in nanoseconds. Never goes back: the ended periods are read before the one under way, so a
   * stall that ends in between is missed by this call and counted by the next.
   */
  long writeStallNanos() {
    long ended = endedStallNanos.sum();
    long start = stallStartNanos;
    return ended + (start == 0 ? 0 : Math.max(0, options.env().nanoTime() - start));
  }

  // What the stall and slowdown triggers count: not the damaged tables set aside in level 0.
  private static int level0Count(ReadView current) {
    return current.levels().level0Backlog().size();
  }
}
