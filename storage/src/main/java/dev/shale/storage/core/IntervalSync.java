package dev.shale.storage.core;

import dev.shale.storage.CpuPriority;
import dev.shale.storage.Env;
import dev.shale.storage.util.Joins;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * SyncMode.INTERVAL's daemon thread: every {@code intervalMillis} it fsyncs the log if anything
 * was written since the last fsync, which bounds what a power loss can take. A failed fsync
 * poisons the engine and ends the thread.
 */
final class IntervalSync implements Runnable {
  private static final System.Logger LOG = System.getLogger(IntervalSync.class.getName());

  private final ActiveLog log;
  private final long intervalNanos;
  private final Consumer<IOException> onFailure;
  private final Env env;
  private final String name;
  private volatile @Nullable Thread thread; // set once, by start()
  private volatile boolean stopping;

  IntervalSync(ActiveLog log, long intervalMillis, Consumer<IOException> onFailure, String name, Env env) {
    this.log = log;
    this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
    this.onFailure = onFailure;
    this.name = name;
    this.env = env;
  }

  /**
   * Starts the thread; {@code onDeath} gets what ends it other than a normal return (an Error,
   * or a bug's exception), so that the engine knows it lost the thread.
   */
  void start(Thread.UncaughtExceptionHandler onDeath) {
    thread = env.startDaemon(name, CpuPriority.NORMAL, onDeath, this);
  }

  @Override
  public void run() {
    // Parking, not sleeping: an interrupt would close the log's channel mid-force.
    while (!stopping) {
      env.parkNanos(this, intervalNanos);
      if (stopping) return;
      try {
        log.sync();
      } catch (IOException e) {
        LOG.log(Level.ERROR, "interval fsync of " + log.describe() + " failed: " + e);
        onFailure.accept(e);
        return;
      }
    }
  }

  /** Stops the thread and waits for an fsync in progress to end. */
  void stop() {
    stopping = true;
    Thread thread = this.thread;
    if (thread == null) return; // never started
    LockSupport.unpark(thread);
    Joins.joinUninterruptibly(thread);
  }
}
