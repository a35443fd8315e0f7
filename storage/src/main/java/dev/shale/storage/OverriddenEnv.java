package dev.shale.storage;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/** {@link Env#withVfs} and {@link Env#withWallClock}: {@code base} with other files or wall clock. */
record OverriddenEnv(Env base, Vfs vfs, LongSupplier wallClock) implements Env {
  @Override
  public long nanoTime() {
    return base.nanoTime();
  }

  @Override
  public long wallMillis() {
    return wallClock.getAsLong();
  }

  @Override
  public Thread startDaemon(String name, CpuPriority priority, Thread.UncaughtExceptionHandler onDeath, Runnable body) {
    return base.startDaemon(name, priority, onDeath, body);
  }

  @Override
  public ExecutorService newSingleThreadExecutor(String threadName) {
    return base.newSingleThreadExecutor(threadName);
  }

  @Override
  public ThreadFactory threadFactory(String namePrefix, CpuPriority priority) {
    return base.threadFactory(namePrefix, priority);
  }

  @Override
  public void parkNanos(Object blocker, long nanos) {
    base.parkNanos(blocker, nanos);
  }

  @Override
  public void sleepMillis(long millis) throws InterruptedException {
    base.sleepMillis(millis);
  }

  @Override
  public long awaitNanos(Condition condition, long nanos) throws InterruptedException {
    return base.awaitNanos(condition, nanos);
  }

  @Override
  public void join(Thread thread, long millis) throws InterruptedException {
    base.join(thread, millis);
  }

  @Override
  public <T> T get(Future<T> future, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    return base.get(future, timeout, unit);
  }

  @Override
  public boolean awaitTermination(ExecutorService executor, long timeout, TimeUnit unit) throws InterruptedException {
    return base.awaitTermination(executor, timeout, unit);
  }

  @Override
  public <E> @Nullable E poll(BlockingQueue<E> queue, long timeout, TimeUnit unit) throws InterruptedException {
    return base.poll(queue, timeout, unit);
  }

  // Overriding both again wraps base, not this: a chain of overrides stays one level deep.
  @Override
  public Env withVfs(Vfs files) {
    return new OverriddenEnv(base, files, wallClock);
  }

  @Override
  public Env withWallClock(LongSupplier millis) {
    return new OverriddenEnv(base, vfs, millis);
  }
}
