package dev.shale.storage.core;

import dev.shale.storage.CpuPriority;
import dev.shale.storage.Env;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.util.Closeables;
import dev.shale.storage.util.Joins;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Finishes opening a store whose disk was full (docs/design.md, "A full disk"): runs the
 * {@link OpeningWrites} left undone again every {@link #RETRY_MILLIS} until they succeed, then
 * hands the engine its new log segment, which takes writes and starts the flush and compaction
 * threads. Until then the engine serves reads and refuses writes.
 *
 * <p>Thread safety: {@link #start} and {@link #stop} are the engine's (open, close); the rest
 * runs on this class's thread.
 */
final class PendingStart implements Runnable {
  /*
   * Why no flush or compaction runs meanwhile: each writes tables numbered above the new log
   * segment's number and commits snapshots, naming that segment, to the new manifest, which is
   * not written yet. So this thread alone writes until opening's writes are done, and the engine
   * starts those threads only then (Host.started).
   */

  /** What the engine does once opening's writes are done, or failed for another reason. */
  interface Host {
    /**
     * Takes {@code first} as its log segment and starts its flush and compaction threads; false
     * (and {@code first} not taken) if the engine closed meanwhile.
     */
    boolean started(LogWriter first);

    /** Opening's writes failed, not for want of space: the engine refuses writes for good. */
    void failed(IOException cause);
  }

  /** The pause between two attempts: the free space is read as often (DiskSpace). */
  static final long RETRY_MILLIS = 1_000;

  private static final System.Logger LOG = System.getLogger(PendingStart.class.getName());

  private final OpeningWrites writes;
  private final Manifest manifest;
  private final LongSupplier newFileNumber;
  private final Host host;
  private final Env env;
  private final String threadName;
  private volatile @Nullable Thread thread; // set once, by start()
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition stopRequested = lock.newCondition();
  private boolean stopping; // guarded by lock

  PendingStart(OpeningWrites writes, Manifest manifest, LongSupplier newFileNumber, Host host, String threadName, Env env) {
    this.writes = writes;
    this.manifest = manifest;
    this.newFileNumber = newFileNumber;
    this.host = host;
    this.threadName = threadName;
    this.env = env;
  }

  /**
   * Starts the thread; {@code onDeath} gets what ends it other than a normal return (an Error,
   * or a bug's exception), so that the engine knows it lost the thread.
   */
  void start(Thread.UncaughtExceptionHandler onDeath) {
    thread = env.startDaemon(threadName, CpuPriority.NORMAL, onDeath, this);
  }

  /** Stops retrying; waits for an attempt in progress to end (and hand its result over). */
  void stop() {
    lock.lock();
    try {
      stopping = true;
      stopRequested.signalAll();
    } finally {
      lock.unlock();
    }
    Thread thread = this.thread;
    if (thread != null) Joins.joinUninterruptibly(thread);
    writes.abandon(); // a segment created by an attempt that did not finish
  }

  @Override
  public void run() {
    while (awaitRetry()) {
      LogWriter first;
      try {
        first = writes.run(manifest, newFileNumber);
      } catch (IOException e) {
        if (DiskSpace.isNoSpace(e)) continue; // still full: the refusal already says so
        host.failed(e);
        return;
      } catch (RuntimeException e) {
        host.failed(new IOException(e.toString(), e));
        return;
      }
      if (!host.started(first)) Closeables.closeQuietly(first, first.path(), LOG);
      return;
    }
  }

  // Waits RETRY_MILLIS; false once stop() was called.
  private boolean awaitRetry() {
    long remaining = TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);
    lock.lock();
    try {
      while (!stopping && remaining > 0) remaining = env.awaitNanos(stopRequested, remaining);
      return !stopping;
    } catch (InterruptedException e) {
      return false; // nothing interrupts this thread; were it interrupted, it would stop
    } finally {
      lock.unlock();
    }
  }
}
