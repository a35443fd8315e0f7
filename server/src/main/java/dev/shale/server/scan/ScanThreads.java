package dev.shale.server.scan;

import dev.shale.server.EngineBatches;
import dev.shale.server.FixedThreads;
import dev.shale.server.ScanViews;
import dev.shale.server.StoragePool;
import dev.shale.storage.Env;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that pull scans' records from the engine, off the event loops (a table read may
 * fault pages in from disk), apart from the {@link StoragePool} so that long scans never hold
 * the workers point requests need, and so that scans run also when point calls run inline.
 *
 * <p>Bounded both ways: at most {@code maxScans} scans at once server-wide (a scan past it gets
 * 503 before its first byte), and each scan has at most three tasks queued or running at a time
 * ({@link EngineBatches}: one pull, the release of a {@link EngineBatches#park park} queued before
 * it, and the {@link EngineBatches#close close}), so the queue never holds more than three times
 * {@code maxScans} tasks although its type is unbounded.
 *
 * <p>Thread safe.
 */
public final class ScanThreads implements Executor {
  /** Threads pulling records; a pull is short (one batch), so a few serve many scans. */
  public static final int DEFAULT_THREADS = 4;
  private final ThreadPoolExecutor executor;
  private final int maxScans;
  private final Env env;
  private final AtomicInteger running = new AtomicInteger();
  private final ScanViews views = new ScanViews();

  /** {@code threads} from {@code env} pull records for at most {@code maxScans} scans at once. */
  public ScanThreads(int threads, int maxScans, Env env) {
    this.env = env;
    this.maxScans = maxScans;
    this.executor = FixedThreads.start(threads, new LinkedBlockingQueue<>(), "shale-scan", env);
  }

  /** Takes a place for one scan; false (and nothing taken) when {@code maxScans} are running. */
  boolean tryBegin() {
    while (true) {
      int now = running.get();
      if (now >= maxScans) return false;
      if (running.compareAndSet(now, now + 1)) return true;
    }
  }

  /** Gives back the place {@link #tryBegin} took. */
  void end() {
    running.decrementAndGet();
  }

  int maxScans() {
    return maxScans;
  }

  /** The scans that hold an engine iterator now (the others wait for their readers, holding none). */
  public ScanViews views() {
    return views;
  }

  /** Runs {@code task} on a scan thread; throws RejectedExecutionException once shut down. */
  @Override
  public void execute(Runnable task) {
    executor.execute(task);
  }

  /** Refuses new tasks and waits up to {@code timeoutMillis} for the queued ones; true if they all ended. */
  public boolean shutdown(long timeoutMillis) {
    return FixedThreads.shutdown(executor, timeoutMillis, env);
  }
}
