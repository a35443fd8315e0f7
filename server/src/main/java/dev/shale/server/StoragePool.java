package dev.shale.server;

import dev.shale.storage.Env;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * The threads that run storage calls, so that a call that waits on the disk (a read that
 * faults a page in, an fsync, a write stall) never holds an event loop. Bounded both ways:
 * a fixed number of workers and a fixed queue; when the queue is full a call is refused at once
 * (the server answers 503), never queued without bound.
 *
 * <p>Thread safe.
 */
public final class StoragePool {
  private final ThreadPoolExecutor executor;
  private final Env env;

  /** {@code workers} >= 1 threads from {@code env}; {@code queueSize} >= 0 calls waiting (0: hand-off only). */
  StoragePool(int workers, int queueSize, Env env) {
    this.env = env;
    BlockingQueue<Runnable> queue =
        queueSize == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(queueSize);
    executor = FixedThreads.start(workers, queue, "shale-storage", env);
    // With a hand-off queue a call is accepted only by an idle worker: start them all now.
    executor.prestartAllCoreThreads();
  }

  /** Runs {@code task} on a worker, or returns false at once if every worker and queue place is taken. */
  public boolean trySubmit(Runnable task) {
    return FixedThreads.tryExecute(executor, task);
  }

  /** Calls waiting for a worker. */
  public int queued() {
    return executor.getQueue().size();
  }

  /** Refuses new calls and waits up to {@code timeoutMillis} for the accepted ones; true if they all ended. */
  boolean shutdown(long timeoutMillis) {
    return FixedThreads.shutdown(executor, timeoutMillis, env);
  }
}
