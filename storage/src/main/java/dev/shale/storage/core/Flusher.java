package dev.shale.storage.core;

import dev.shale.storage.CpuPriority;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.table.BlockCache;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.table.TableWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The flush thread: writes each frozen memtable, oldest first, to {@code <n>.sst}, commits a
 * manifest snapshot naming it, THEN publishes a read view with the table in place of the
 * memtable, THEN deletes the memtable's log segment. That order keeps every record findable and
 * recoverable at every step.
 *
 * <p>A failed flush is logged and retried with backoff: the memtable stays readable and its log
 * stays on disk. A table written but not yet committed is kept for the retry, so a failing
 * manifest does not leave a new orphan table behind each time.
 */
final class Flusher implements Runnable {
  /** What the flush thread needs from the engine. All methods are thread safe. */
  interface Host {
    /**
     * The oldest frozen memtable, retained for the caller (who releases it, so that it outlives
     * a close that gives up waiting for the flush); waits until there is one; null once the
     * engine closes.
     */
    @Nullable FrozenMemtable awaitOldestFrozen() throws InterruptedException;

    /**
     * Under the engine's manifest lock (so a compaction's commit cannot interleave): commits the
     * snapshot naming {@code table}, then publishes the view with it in place of
     * {@code flushed}. False if the engine closed first (nothing committed).
     */
    boolean commit(FrozenMemtable flushed, SharedTable table) throws IOException;

    /** Records a failed attempt, for stall messages. */
    void flushFailed(Exception failure);

    /** Waits {@code millis} or until the engine closes; false once it closes. */
    boolean awaitRetry(long millis) throws InterruptedException;
  }

  static final long FIRST_RETRY_MILLIS = 100;
  static final long MAX_RETRY_MILLIS = 10_000;

  private static final System.Logger LOG = System.getLogger(Flusher.class.getName());

  private final Host host;
  private final Path directory;
  private final EngineOptions options;
  private final FileNumbers fileNumbers;
  private final FlushGate gate;
  private final Hooks.CrashPoints crashPoints;
  private final String threadName;
  private volatile @Nullable Thread thread; // set once, by start()
  private final ActivitySummary activity;
  // A table written for a memtable whose manifest commit failed, reused by the retry; null when
  // no commit failed since the last table was written.
  private @Nullable Written pending;

  private final BlockCache blockCache; // the engine's, which the tables written here read through

  Flusher(Host host, Path directory, EngineOptions options, FileNumbers fileNumbers,
      Hooks hooks, ActivitySummary activity, String threadName, BlockCache blockCache) {
    this.blockCache = blockCache;
    this.activity = activity;
    this.host = host;
    this.directory = directory;
    this.options = options;
    this.fileNumbers = fileNumbers;
    this.gate = hooks.flushGate();
    this.crashPoints = hooks.crashPoints();
    this.threadName = threadName;
  }

  /**
   * Starts the thread; {@code onDeath} gets what ends it other than a normal return (an Error,
   * such as an OutOfMemoryError: other failures are retried), so that the engine knows it lost
   * the thread.
   */
  void start(Thread.UncaughtExceptionHandler onDeath) {
    thread = options.env().startDaemon(threadName, CpuPriority.NORMAL, onDeath, this);
  }

  /**
   * Waits up to {@code timeoutMillis} for the thread to finish its flush in progress and stop
   * (the engine has closed, so it starts no other); then interrupts it. True if it stopped.
   */
  boolean awaitStop(long timeoutMillis) {
    gate.cancel();
    Thread thread = this.thread;
    if (thread == null) return true; // never started (opening found the disk full)
    boolean interrupted = false;
    long deadline = options.env().nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (thread.isAlive()) {
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadline - options.env().nanoTime());
      if (remainingMillis <= 0) break;
      try {
        options.env().join(thread, remainingMillis);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    boolean stopped = !thread.isAlive();
    if (!stopped) {
      LOG.log(Level.WARNING, thread.getName() + " still flushing after " + timeoutMillis
          + " ms at close; interrupting it (its memtable is replayed from the log at next open)");
      thread.interrupt();
    }
    if (interrupted) Thread.currentThread().interrupt();
    return stopped;
  }

  @Override
  public void run() {
    long retryMillis = FIRST_RETRY_MILLIS;
    try {
      while (true) {
        FrozenMemtable next = host.awaitOldestFrozen();
        if (next == null) return;
        try {
          if (!gate.enter()) return;
          try {
            flush(next);
            retryMillis = FIRST_RETRY_MILLIS;
          } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "flush of the memtable of " + FileNames.log(next.logNumber())
                + " failed, retrying in " + retryMillis + " ms: " + e);
            host.flushFailed(e);
            if (!host.awaitRetry(retryMillis)) return;
            retryMillis = Math.min(retryMillis * 2, MAX_RETRY_MILLIS);
          } finally {
            gate.exit();
          }
        } finally {
          next.memtable().release(); // taken by awaitOldestFrozen
        }
      }
    } catch (InterruptedException e) {
      // Interrupted only by awaitStop, after close: nothing left to do.
    } finally {
      dropPending();
    }
  }

  private void flush(FrozenMemtable frozen) throws IOException {
    long startNanos = options.env().nanoTime();
    Written written = pending;
    if (written == null || !written.frozen().equals(frozen)) {
      dropPending();
      written = new Written(frozen, writeTable(frozen));
      pending = written;
      crashPoints.reached("flush.afterTableWritten");
    }
    SharedTable table = written.table();
    TableMeta meta = table.meta();
    if (!host.commit(frozen, table)) {
      // Closed before the commit wrote anything: no manifest can name the table, so it goes now
      // (when dropPending lets it go) rather than at the next open.
      table.markObsolete();
      return;
    }
    pending = null;
    table.release(); // the view holds its own reference
    crashPoints.reached("flush.afterInstall");
    deleteLog(frozen.logNumber());
    crashPoints.reached("flush.afterLogDeleted");
    activity.flushed(meta.fileSizeBytes());
    // DEBUG: a loaded store flushes several times a second; ActivitySummary writes the INFO line.
    LOG.log(Level.DEBUG, () -> "flushed " + FileNames.log(frozen.logNumber()) + " to "
        + FileNames.table(meta.fileNumber()) + ": " + meta.entryCount() + " entries, "
        + meta.fileSizeBytes() + " bytes, "
        + TimeUnit.NANOSECONDS.toMillis(options.env().nanoTime() - startNanos) + " ms");
  }

  private SharedTable writeTable(FrozenMemtable frozen) throws IOException {
    long number = fileNumbers.allocate();
    Path file = directory.resolve(FileNames.table(number));
    TableMeta meta = TableWriter.write(options.vfs(), file, number, frozen.memtable().iterator(),
        options.blockSizeBytes(), options.bloomBitsPerKey(), options.compression());
    try {
      // The table's directory entry must be durable before a manifest record names it.
      options.vfs().syncDirectory(directory);
      return SharedTable.open(options.vfs(), file, meta, blockCache);
    } catch (IOException | RuntimeException e) {
      deleteQuietly(file);
      throw e;
    }
  }

  // A table whose commit failed may yet be named by a manifest record that reached the disk,
  // so it is not deleted here: the next open deletes it if no manifest names it.
  private void dropPending() {
    Written dropped = pending;
    pending = null;
    if (dropped != null) dropped.table().release();
  }

  /** {@code frozen} written to {@code table}, which holds a reference of this thread's. */
  private record Written(FrozenMemtable frozen, SharedTable table) {}

  private void deleteLog(long logNumber) {
    Path file = directory.resolve(FileNames.log(logNumber));
    try {
      options.vfs().delete(file);
    } catch (IOException e) {
      LOG.log(Level.WARNING,
          "deleting flushed log " + file + " failed (deleted at next open): " + e);
    }
  }

  private void deleteQuietly(Path file) {
    try {
      options.vfs().delete(file);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "deleting unfinished table " + file + " failed: " + e);
    }
  }
}
