package dev.shale.storage;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import org.jspecify.annotations.Nullable;

/**
 * An {@link Env} whose clocks move only when the test moves them: {@link #advanceMillis} moves
 * both, {@link #setWallMillis} steps the wall clock alone (either way, as NTP may). Threads,
 * parking, sleeping and timed waits stay real, so the engine's background threads run as in
 * production; a park, sleep or timed wait waits real time, not this clock's. Files through the {@link Vfs} it was given.
 *
 * <p>{@link #timedWaitsOnThisClock} makes timed condition waits ({@link #awaitNanos}) run out on this
 * clock instead: a wait of any length ends only when it is signalled or the test moves the clock
 * past it, so a test can tell "retried when told to" from "retried when its backoff ran out".
 */
public final class ManualClockEnv implements Env {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L); // any origin: only differences count
  private final AtomicLong wallMillis;
  private final Vfs vfs;
  private volatile boolean timedWaitsOnThisClock;

  /** Real files; the wall clock at {@code wallMillis}. */
  public ManualClockEnv(long wallMillis) {
    this(wallMillis, Vfs.real());
  }

  public ManualClockEnv(long wallMillis, Vfs vfs) {
    this.wallMillis = new AtomicLong(wallMillis);
    this.vfs = vfs;
  }

  /**
   * From now on a timed condition wait ends when signalled or when this clock has moved past it,
   * never by real time passing. Returns this env.
   */
  public ManualClockEnv timedWaitsOnThisClock() {
    timedWaitsOnThisClock = true;
    return this;
  }

  /** Moves both clocks forward by {@code millis}. */
  public void advanceMillis(long millis) {
    if (millis < 0) throw new IllegalArgumentException("monotonic time does not go back: " + millis);
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    wallMillis.addAndGet(millis);
  }

  /** Moves both clocks forward by {@code nanos}. */
  public void advanceNanos(long nanos) {
    if (nanos < 0) throw new IllegalArgumentException("monotonic time does not go back: " + nanos);
    this.nanos.addAndGet(nanos);
    wallMillis.addAndGet(TimeUnit.NANOSECONDS.toMillis(nanos));
  }

  /** Steps the wall clock to {@code millis}, back or forward; monotonic time does not move. */
  public void setWallMillis(long millis) {
    wallMillis.set(millis);
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  @Override
  public long wallMillis() {
    return wallMillis.get();
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
    if (!timedWaitsOnThisClock) return Env.real().awaitNanos(condition, nanos);
    long start = nanoTime();
    // Wakes now and then in real time to see whether the test moved the clock: a waiter's loop
    // takes that as a spurious wakeup and waits again with what is left on this clock.
    Env.real().awaitNanos(condition, TimeUnit.MILLISECONDS.toNanos(50));
    return nanos - (nanoTime() - start);
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
