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

/**
 * Everything a node takes from its surroundings, in one place (as LevelDB's {@code Env},
 * TigerBeetle's {@code Time} and {@code Storage}): monotonic time, wall time, threads, parking,
 * and files ({@link Vfs}). Code below the app module reads the clock, starts a thread, sleeps or
 * touches a file only through the {@code Env} it was given, so that a test, and the simulator
 * to come, decide what time it is, what a file holds and which threads run (docs/design.md,
 * "The environment"). A build-time check (forbiddenapis, {@code build/forbidden-apis.txt})
 * refuses the JDK's own calls for these anywhere else.
 *
 * <p>Production uses {@link #real()}, built once by the app module and passed down. Tests pass
 * one with a clock they move by hand, or a {@link Vfs} that injects faults.
 *
 * <p>Thread safety: every method may be called from any number of threads at once.
 */
public interface Env {
  /** The operating system's clocks, platform threads and filesystem. */
  static Env real() {
    return RealEnv.INSTANCE;
  }

  /**
   * Monotonic time in nanoseconds, for durations and deadlines only: its origin is arbitrary, it
   * never goes back, and it means nothing across processes ({@link System#nanoTime}'s contract).
   */
  long nanoTime();

  /**
   * Wall-clock time, milliseconds since the epoch: behind record versions, tombstone expiry and
   * expiring values. It may jump either way (NTP), unlike {@link #nanoTime}.
   */
  long wallMillis();

  /** The filesystem every file operation goes through. */
  Vfs vfs();

  /**
   * Starts a daemon platform thread named {@code name} that runs {@code body} at {@code priority};
   * what ends it other than a normal return (an Error, a bug's exception) goes to {@code onDeath},
   * so that its owner knows it lost the thread.
   */
  Thread startDaemon(String name, CpuPriority priority, Thread.UncaughtExceptionHandler onDeath, Runnable body);

  /**
   * An executor of one daemon thread named {@code threadName}, at the normal priority, that runs
   * its tasks in the order submitted; a task's exception goes to its Future. Its owner shuts it
   * down.
   */
  ExecutorService newSingleThreadExecutor(String threadName);

  /**
   * A factory of daemon platform threads named {@code <namePrefix>-1}, {@code -2}, ... (counted
   * per factory) that run at {@code priority}: for the thread pools of whoever holds this Env, so
   * that a thread dump says whose a thread is. The threads are made, not started; the pool starts
   * them.
   */
  ThreadFactory threadFactory(String namePrefix, CpuPriority priority);

  /**
   * Parks the calling thread for up to {@code nanos}, or until it is unparked ({@link
   * java.util.concurrent.locks.LockSupport#unpark}) or interrupted; it may also return for no
   * reason, as {@link java.util.concurrent.locks.LockSupport#parkNanos} may. Unlike a sleep, an
   * interrupt does not throw, so a thread that must not be interrupted mid-I/O (an interrupt
   * closes a file channel) waits with this.
   */
  void parkNanos(Object blocker, long nanos);

  /** Sleeps for {@code millis}; throws if interrupted meanwhile. */
  void sleepMillis(long millis) throws InterruptedException;

  // Timed waits: each is the JDK call of the same name, whose time runs out on this Env's clock
  // (the real one's: the JDK's). Code waits for a time only through these, so that a simulator
  // decides when a wait times out.

  /**
   * Waits on {@code condition}, whose lock the caller holds, for a signal or up to {@code nanos},
   * as {@link Condition#awaitNanos}: the nanoseconds left, at most 0 once the time ran out.
   */
  long awaitNanos(Condition condition, long nanos) throws InterruptedException;

  /** Waits up to {@code millis} (0: for ever) for {@code thread} to end, as {@link Thread#join(long)}. */
  void join(Thread thread, long millis) throws InterruptedException;

  /**
   * The result of {@code future}, waiting up to {@code timeout}, as {@link Future#get(long,
   * TimeUnit)}: TimeoutException if it is not done by then.
   */
  <T> T get(Future<T> future, long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException;

  /**
   * Waits up to {@code timeout} for the tasks of {@code executor}, shut down, to end, as {@link
   * ExecutorService#awaitTermination}: whether they did.
   */
  boolean awaitTermination(ExecutorService executor, long timeout, TimeUnit unit) throws InterruptedException;

  /** The head of {@code queue}, waiting up to {@code timeout} for one, as {@link BlockingQueue#poll(long, TimeUnit)}; null if none came. */
  <E> @Nullable E poll(BlockingQueue<E> queue, long timeout, TimeUnit unit) throws InterruptedException;

  /** This environment with its files through {@code files} instead (tests inject faults so). */
  default Env withVfs(Vfs files) {
    return new OverriddenEnv(this, files, this::wallMillis);
  }

  /**
   * This environment with {@code millis} as its wall clock instead: a node whose clock runs
   * ahead or behind, or a test that moves the calendar.
   */
  default Env withWallClock(LongSupplier millis) {
    return new OverriddenEnv(this, vfs(), millis);
  }
}
