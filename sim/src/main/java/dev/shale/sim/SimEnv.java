package dev.shale.sim;

import dev.shale.storage.CpuPriority;
import dev.shale.storage.Env;
import dev.shale.storage.Vfs;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import org.jspecify.annotations.Nullable;

/**
 * One node's {@link Env} in the simulation: monotonic time is the virtual clock, wall time the
 * node's {@link NodeClock}, files its crash filesystem.
 *
 * <p>Threads, parking and timed waits stay real ({@link Env#real()}): the engine starts its flush
 * and compaction threads through them. The simulator keeps those threads idle, so they touch
 * nothing a run depends on: memtables far larger than a run writes (no flush, so no
 * compaction), and {@code SyncMode.ALWAYS} (no interval-sync thread); the hint delivery runs
 * without a thread ({@code HintedHandoff.startDriven}). docs/design.md, "Simulation", says what
 * this leaves out.
 */
final class SimEnv implements Env {
  private final VirtualTime time;
  private final NodeClock clock;
  private final Vfs vfs;

  SimEnv(VirtualTime time, NodeClock clock, Vfs vfs) {
    this.time = time;
    this.clock = clock;
    this.vfs = vfs;
  }

  @Override
  public long nanoTime() {
    return TimeUnit.MILLISECONDS.toNanos(time.nowMillis());
  }

  @Override
  public long wallMillis() {
    return clock.wallMillis(time.nowMillis());
  }

  @Override
  public Vfs vfs() {
    return vfs;
  }

  @Override
  public Thread startDaemon(String name, CpuPriority priority, Thread.UncaughtExceptionHandler onDeath, Runnable body) {
    return Env.real().startDaemon(name, priority, onDeath, body);
  }

  @Override
  public ExecutorService newSingleThreadExecutor(String threadName) {
    return Env.real().newSingleThreadExecutor(threadName);
  }

  @Override
  public ThreadFactory threadFactory(String namePrefix, CpuPriority priority) {
    return Env.real().threadFactory(namePrefix, priority);
  }

  @Override
  public void parkNanos(Object blocker, long nanos) {
    Env.real().parkNanos(blocker, nanos);
  }

  @Override
  public void sleepMillis(long millis) throws InterruptedException {
    Env.real().sleepMillis(millis);
  }

  @Override
  public long awaitNanos(Condition condition, long nanos) throws InterruptedException {
    return Env.real().awaitNanos(condition, nanos);
  }

  @Override
  public void join(Thread thread, long millis) throws InterruptedException {
    Env.real().join(thread, millis);
  }

  @Override
  public <T> T get(Future<T> future, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    return Env.real().get(future, timeout, unit);
  }

  @Override
  public boolean awaitTermination(ExecutorService executor, long timeout, TimeUnit unit) throws InterruptedException {
    return Env.real().awaitTermination(executor, timeout, unit);
  }

  @Override
  public <E> @Nullable E poll(BlockingQueue<E> queue, long timeout, TimeUnit unit) throws InterruptedException {
    return Env.real().poll(queue, timeout, unit);
  }
}
