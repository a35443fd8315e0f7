package dev.shale.storage;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * {@link Env#real()}: the JDK's clocks, platform threads (niced through {@link ThreadNiceness})
 * and {@link Vfs#real()}. With RealVfs and ThreadNiceness, the only code allowed to call the
 * JDK's clock, thread and sleep APIs (build/forbidden-apis.txt).
 */
@SuppressForbidden(reason = "the real environment: the one place that reads the JDK's clocks and starts its threads")
final class RealEnv implements Env {
  static final RealEnv INSTANCE = new RealEnv();

  private RealEnv() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public long wallMillis() {
    return System.currentTimeMillis();
  }

  @Override
  public Vfs vfs() {
    return Vfs.real();
  }

  @Override
  public Thread startDaemon(String name, CpuPriority priority, Thread.UncaughtExceptionHandler onDeath, Runnable body) {
    Thread thread = Thread.ofPlatform().daemon().name(name).uncaughtExceptionHandler(onDeath).unstarted(at(priority, body));
    thread.start();
    return thread;
  }

  @Override
  public ExecutorService newSingleThreadExecutor(String threadName) {
    return Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name(threadName).daemon().unstarted(r));
  }

  @Override
  public ThreadFactory threadFactory(String namePrefix, CpuPriority priority) {
    AtomicInteger made = new AtomicInteger();
    return task -> Thread.ofPlatform().daemon().name(namePrefix + "-" + made.incrementAndGet()).unstarted(at(priority, task));
  }

  // body, run by a new thread once it has set its own niceness to priority's.
  private static Runnable at(CpuPriority priority, Runnable body) {
    return () -> {
      ThreadNiceness.setForCurrentThread(priority.niceness());
      body.run();
    };
  }

  @Override
  public void parkNanos(Object blocker, long nanos) {
    LockSupport.parkNanos(blocker, nanos);
  }

  @Override
  public void sleepMillis(long millis) throws InterruptedException {
    Thread.sleep(millis);
  }

  @Override
  public long awaitNanos(Condition condition, long nanos) throws InterruptedException {
    return condition.awaitNanos(nanos);
  }

  @Override
  public void join(Thread thread, long millis) throws InterruptedException {
    thread.join(millis);
  }

  @Override
  public <T> T get(Future<T> future, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    return future.get(timeout, unit);
  }

  @Override
  public boolean awaitTermination(ExecutorService executor, long timeout, TimeUnit unit) throws InterruptedException {
    return executor.awaitTermination(timeout, unit);
  }

  @Override
  public <E> @Nullable E poll(BlockingQueue<E> queue, long timeout, TimeUnit unit) throws InterruptedException {
    return queue.poll(timeout, unit);
  }
}
