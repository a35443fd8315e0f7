package dev.shale.server;

import dev.shale.server.scan.ScanThreads;
import dev.shale.storage.CpuPriority;
import dev.shale.storage.Env;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The fixed pools of daemon threads the server runs work on ({@link StoragePool},
 * {@link ScanThreads}): made and stopped the same way, named so that a thread dump says whose
 * they are.
 */
public final class FixedThreads {
  private FixedThreads() {}

  /**
   * {@code threads} daemon threads from {@code env}, named {@code <prefix>-1..n}, over {@code
   * queue}; a task past the queue is rejected.
   */
  public static ThreadPoolExecutor start(int threads, BlockingQueue<Runnable> queue, String prefix, Env env) {
    return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, queue,
        env.threadFactory(prefix, CpuPriority.NORMAL), new ThreadPoolExecutor.AbortPolicy());
  }

  /** Runs {@code task} on {@code executor}, or returns false at once if it rejects it (full, or shut down). */
  static boolean tryExecute(Executor executor, Runnable task) {
    try {
      executor.execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  /**
   * Refuses new tasks and waits up to {@code timeoutMillis} (on {@code env}'s clock) for the
   * accepted ones; true if they all ended.
   */
  public static boolean shutdown(ThreadPoolExecutor executor, long timeoutMillis, Env env) {
    executor.shutdown();
    try {
      return env.awaitTermination(executor, timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
