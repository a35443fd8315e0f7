package dev.shale.storage.core;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.DiskFullException;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.StorageException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The compaction thread, apart from the flush thread so that a flush never waits behind a long
 * compaction. Woken whenever the file set changes, it picks work by score
 * ({@link CompactionPicker}) until no level is due, and runs
 * {@link dev.shale.storage.Engine#compact}'s full
 * compactions when asked. Each compaction writes its outputs from a retained read view (so its
 * inputs stay open), then lets the engine commit ONE manifest snapshot replacing inputs by
 * outputs and publish the new view; the inputs are deleted when the last view or scan pinning
 * them lets go. Reads and writes never wait for it.
 *
 * <p>A failed compaction is logged and counted; the next attempt waits (100 ms doubling to 10 s)
 * so a failing disk is not hammered. A table found corrupt is set aside (reported to the engine's
 * {@link DamageRegistry}, moved to level 0 and never read by a compaction again: see
 * {@link CompactionPicker}), so one bad block never makes the thread loop nor holds writes back.
 */
final class Compactor implements Runnable {
  /** What the compaction thread needs from the engine. All methods are thread safe. */
  interface Host {
    /** The current view, retained for the caller; null once the engine is closed. */
    @Nullable ReadView retainView();

    /**
     * Under the engine's manifest lock: commits the snapshot with {@code compaction}'s inputs
     * replaced by {@code outputs}, publishes the view, and marks rewritten inputs obsolete.
     * False (nothing changed) if the engine closed.
     */
    boolean commit(Compaction compaction, List<SharedTable> outputs) throws IOException;
  }

  private static final System.Logger LOG = System.getLogger(Compactor.class.getName());

  private final Host host;
  private final EngineOptions options;
  private final CompactionRun run;
  private final CompactionPicker picker;
  private final String threadName;
  private volatile @Nullable Thread thread; // set once, by start()
  private final FlushGate gate;
  private final DamageRegistry damage;
  private final DiskSpace disk;
  private boolean deferredForSpace; // only the compaction thread: whether the last pick waited for room

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean changed = true; // guarded by lock: the file set may have work; pick again
  private boolean stopping; // guarded by lock
  private boolean ended; // guarded by lock: the thread has returned, or died of an Error
  private static final String DIED = "the compaction thread died (the engine's health says of what)";
  private volatile boolean stopRequested; // stopping, readable without the lock
  private final ArrayDeque<FullRequest> fullRequests = new ArrayDeque<>(); // guarded by lock

  private final ActivitySummary activity;
  private final LongAdder compactions = new LongAdder();
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder bytesWritten = new LongAdder();
  private final LongAdder failures = new LongAdder();

  Compactor(Host host, EngineOptions options, CompactionRun run, FlushGate gate,
      DamageRegistry damage, DiskSpace disk, ActivitySummary activity, String threadName) {
    this.activity = activity;
    this.host = host;
    this.gate = gate;
    this.damage = damage;
    this.disk = disk;
    this.options = options;
    this.run = run;
    this.picker = new CompactionPicker(options);
    this.threadName = threadName;
  }

  /**
   * Starts the thread; {@code onDeath} gets what ends it other than a normal return (an Error,
   * or a bug's exception), so that the engine knows it lost the thread.
   */
  void start(Thread.UncaughtExceptionHandler onDeath) {
    thread = options.env().startDaemon(threadName, options.compactionPriority(), onDeath, this);
  }

  /** The file set changed (a flush landed): look for work. */
  void signal() {
    lock.lock();
    try {
      changed = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Asks for a full compaction of every table now in the store; completes when it is done. */
  CompletableFuture<Void> requestFull() {
    return requestFull(key -> false);
  }

  /**
   * Asks for a full compaction of every table now in the store that leaves out every record of
   * the keys {@code dropKeys} accepts; completes when it is done.
   */
  CompletableFuture<Void> requestFull(Predicate<byte[]> dropKeys) {
    CompletableFuture<Void> request = new CompletableFuture<>();
    lock.lock();
    try {
      if (stopping) {
        request.completeExceptionally(new StorageException("engine is closed"));
      } else if (ended) {
        // Nothing would ever take the request: the engine refuses writes, naming the thread's death.
        request.completeExceptionally(new StorageException(DIED));
      } else {
        fullRequests.add(new FullRequest(request, dropKeys));
        wake.signalAll();
      }
    } finally {
      lock.unlock();
    }
    return request;
  }

  /**
   * Stops the thread: a compaction in progress finishes, or is abandoned after
   * {@code timeoutMillis} (interrupted; its outputs are unreferenced files, deleted at the next
   * open). Pending full-compaction requests fail.
   */
  void stop(long timeoutMillis) {
    stopRequested = true;
    gate.cancel();
    lock.lock();
    try {
      stopping = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
    Thread thread = this.thread; // null if never started (opening found the disk full)
    try {
      if (thread != null) options.env().join(thread, timeoutMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread != null && thread.isAlive()) {
      LOG.log(Level.WARNING, thread.getName() + " still compacting after " + timeoutMillis
          + " ms at close; interrupting it (its outputs are deleted at next open)");
      thread.interrupt();
    }
    failPendingRequests();
  }

  long compactions() {
    return compactions.sum();
  }

  long bytesRead() {
    return bytesRead.sum();
  }

  long bytesWritten() {
    return bytesWritten.sum();
  }

  long failures() {
    return failures.sum();
  }

  @Override
  public void run() {
    long retryMillis = Flusher.FIRST_RETRY_MILLIS;
    try {
      while (true) {
        FullRequest full = awaitWork();
        if (full == null && isStopping()) return;
        if (!gate.enter()) {
          if (full != null) full.done().completeExceptionally(new StorageException("engine is closed"));
          return;
        }
        boolean ok;
        try {
          ok = full != null ? runFull(full) : runPicked();
        } finally {
          gate.exit();
        }
        if (ok) {
          retryMillis = Flusher.FIRST_RETRY_MILLIS;
        } else {
          pause(retryMillis);
          retryMillis = Math.min(retryMillis * 2, Flusher.MAX_RETRY_MILLIS);
        }
      }
    } catch (InterruptedException e) {
      // Interrupted only by stop(): nothing left to do.
    } finally {
      failPendingRequests();
    }
  }

  // A full request, or null when there may be picked work (or the thread is stopping).
  private @Nullable FullRequest awaitWork() throws InterruptedException {
    lock.lock();
    try {
      while (!stopping && !changed && fullRequests.isEmpty()) wake.await();
      if (stopping) return null;
      if (!fullRequests.isEmpty()) return fullRequests.poll();
      changed = false;
      return null;
    } finally {
      lock.unlock();
    }
  }

  private boolean isStopping() {
    lock.lock();
    try {
      return stopping;
    } finally {
      lock.unlock();
    }
  }

  private void pause(long millis) throws InterruptedException {
    long remaining = TimeUnit.MILLISECONDS.toNanos(millis);
    lock.lock();
    try {
      while (!stopping && remaining > 0) remaining = options.env().awaitNanos(wake, remaining);
      changed = true; // retry whatever failed
    } finally {
      lock.unlock();
    }
  }

  // The thread ends (closing, or an Error): no request is taken from now on.
  private void failPendingRequests() {
    List<CompletableFuture<Void>> pending;
    String why;
    lock.lock();
    try {
      ended = true;
      why = stopping ? "engine closed" : DIED;
      pending = new ArrayList<>(fullRequests.stream().map(FullRequest::done).toList());
      fullRequests.clear();
    } finally {
      lock.unlock();
    }
    for (CompletableFuture<Void> r : pending) {
      r.completeExceptionally(new StorageException(why + " before compact() finished"));
    }
  }

  // One picked compaction; true unless it failed. After a success the thread picks again at once.
  private boolean runPicked() {
    ReadView pinned = host.retainView();
    if (pinned == null) return true;
    try {
      Compaction compaction = picker.pick(pinned.levels());
      if (compaction == null) return true;
      if (!roomFor(compaction)) return false; // retried after the backoff
      boolean ok = runOne(compaction, pinned, key -> false) == null;
      if (ok) signal();
      return ok;
    } finally {
      pinned.release();
    }
  }

  // The request is answered only after the pinned view is released: that release may be the last
  // reference on the replaced tables, which deletes them, so a caller of compact() that returns
  // finds them gone (unless a read of its own still holds them). Answered before, the caller
  // raced this thread's release and could measure the store with its old tables still on disk.
  private boolean runFull(FullRequest request) {
    ReadView pinned = host.retainView();
    if (pinned == null) {
      request.done().completeExceptionally(new StorageException("engine is closed"));
      return true;
    }
    FullOutcome outcome;
    try {
      outcome = fullCompaction(pinned, request.dropKeys());
    } catch (Error e) {
      // The thread dies of it (the engine then refuses writes); its caller is told, not left waiting.
      request.done().completeExceptionally(new StorageException(DIED + " before compact() finished", e));
      throw e;
    } finally {
      pinned.release();
    }
    if (outcome.failure() == null) {
      request.done().complete(null);
      signal();
    } else {
      request.done().completeExceptionally(outcome.failure());
    }
    run.reached("compaction.afterFullAnswered");
    return !outcome.compactionFailed();
  }

  /**
   * What a full compaction tells its caller: {@code failure} null when the whole store was
   * compacted; {@code compactionFailed} when the merge itself failed (the thread pauses then).
   */
  private record FullOutcome(@Nullable Throwable failure, boolean compactionFailed) {}

  /** A caller of compact() or dropKeys(): what it waits on, and the keys whose records the compaction leaves out. */
  private record FullRequest(CompletableFuture<Void> done, Predicate<byte[]> dropKeys) {}

  private FullOutcome fullCompaction(ReadView pinned, Predicate<byte[]> dropKeys) {
    List<SharedTable> corrupt = new ArrayList<>();
    for (SharedTable t : pinned.tables()) {
      if (t.isSetAside()) corrupt.add(t);
    }
    if (!corrupt.isEmpty()) {
      return new FullOutcome(new CorruptionException(corrupt.getFirst().path(),
          "found corrupt by an earlier compaction; compact() cannot merge it (corrupt tables: "
              + corrupt.stream().map(t -> t.path().getFileName().toString()).toList() + ")"), false);
    }
    Compaction compaction = CompactionPicker.full(pinned.levels());
    if (compaction != null && !roomFor(compaction)) {
      return new FullOutcome(new DiskFullException("compact() needs room for "
          + compaction.inputBytes() + " bytes of new tables beyond the disk reserve of "
          + options.diskReserveBytes() + " bytes; free some space and call it again"), false);
    }
    Exception failure = compaction == null ? null : runOne(compaction, pinned, dropKeys);
    if (failure == null && stopRequested) {
      return new FullOutcome(new StorageException("engine closed before compact() finished"), false);
    }
    if (failure == null) return new FullOutcome(null, false);
    // A corruption is passed on as itself, so the caller learns which file is bad.
    return new FullOutcome(failure instanceof CorruptionException bad ? bad
        : new StorageException("compact() failed: " + failure, failure), true);
  }

  // A compaction writes all its output before its inputs go: it starts only if that leaves the
  // disk reserve whole (DiskSpace), so it never takes the room flushes need. A move writes nothing.
  private boolean roomFor(Compaction compaction) {
    boolean room = compaction.isTrivialMove() || disk.leavesReserve(compaction.inputBytes());
    if (!room && !deferredForSpace) {
      LOG.log(Level.WARNING, "compaction " + compaction.describe() + " waits: it would leave less"
          + " than the disk reserve of " + options.diskReserveBytes() + " bytes free");
    } else if (room && deferredForSpace) {
      LOG.log(Level.INFO, "compactions go on: the disk has room again");
    }
    deferredForSpace = !room; // one line per change, not one per retry
    return room;
  }

  // Null when the compaction is done (or abandoned because the engine closes); else its failure.
  private @Nullable Exception runOne(Compaction compaction, ReadView pinned, Predicate<byte[]> dropKeys) {
    long startNanos = options.env().nanoTime();
    try {
      CompactionRun.Outputs outputs = compaction.isTrivialMove()
          ? moved(compaction)
          : run.write(compaction, new TombstonePurge(options.env().wallMillis(),
              options.tombstoneGraceMillis(), pinned, compaction.allInputs()),
              dropKeys, () -> stopRequested);
      boolean committed = commit(compaction, outputs);
      if (committed) record(compaction, outputs, startNanos);
      return null;
    } catch (CancellationException closing) {
      LOG.log(Level.INFO, "compaction " + compaction.describe() + " abandoned: " + closing.getMessage());
      return null;
    } catch (IOException | RuntimeException e) {
      fail(compaction, e);
      return e;
    }
  }

  private static CompactionRun.Outputs moved(Compaction compaction) {
    List<SharedTable> outputs = new ArrayList<>();
    long records = 0;
    for (SharedTable input : compaction.inputs()) {
      outputs.add(input.atLevel(compaction.outputLevel()));
      records += input.meta().entryCount();
    }
    return new CompactionRun.Outputs(outputs, 0, records, 0);
  }

  // The view holds the outputs once published; this thread's own references go either way. A
  // commit that threw has had its rewritten outputs dealt with by FileSetCommit: deleted at once
  // if no manifest record was written, else once a later durable snapshot leaves them out. A
  // commit refused because the engine closed wrote nothing, so rewritten outputs go at once.
  private boolean commit(Compaction compaction, CompactionRun.Outputs outputs) throws IOException {
    boolean committed = false;
    try {
      committed = host.commit(compaction, outputs.tables());
      if (!committed && !compaction.isTrivialMove()) {
        outputs.tables().forEach(SharedTable::markObsolete);
      }
      return committed;
    } finally {
      outputs.tables().forEach(SharedTable::release);
    }
  }

  private void record(Compaction compaction, CompactionRun.Outputs outputs, long startNanos) {
    compactions.increment();
    long read = compaction.isTrivialMove() ? 0 : compaction.inputBytes();
    bytesRead.add(read);
    bytesWritten.add(outputs.bytesWritten());
    List<Long> numbers = outputs.tables().stream().map(SharedTable::fileNumber).toList();
    activity.compacted(read, outputs.bytesWritten());
    // DEBUG: a loaded store compacts several times a second; ActivitySummary writes the INFO line.
    LOG.log(Level.DEBUG, () -> "compacted " + compaction.describe()
        + (compaction.isTrivialMove() ? " moved" : " into " + numbers) + ": read " + read
        + " bytes, wrote " + outputs.bytesWritten() + " bytes, " + outputs.recordsWritten()
        + " records, " + outputs.tombstonesDropped() + " tombstones dropped, "
        + TimeUnit.NANOSECONDS.toMillis(options.env().nanoTime() - startNanos) + " ms");
  }

  private void fail(Compaction compaction, Exception e) {
    failures.increment();
    if (e instanceof CorruptionException corrupt) {
      for (SharedTable t : compaction.allInputs()) {
        if (t.path().equals(corrupt.file())) {
          t.markSetAside();
          // The registry logs the damage once, with its remedy; this line says what it stopped.
          damage.report(t.path(), corrupt.problem(), DamageRegistry.TABLE_REMEDY);
          LOG.log(Level.WARNING, "compaction " + compaction.describe() + " stopped at damaged "
              + t.path().getFileName() + "; compacting around it from now on");
          return;
        }
      }
    }
    LOG.log(Level.WARNING, "compaction " + compaction.describe() + " failed: " + e);
  }
}
