package dev.shale.storage;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

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
    Thread thread = Thread.ofPlatform().daemon().name(name).uncaughtExceptionHandler(onDeath).unstarted(() -> {
      ThreadNiceness.setForCurrentThread(priority.niceness());
      body.run();
    });
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
    return task -> Thread.ofPlatform().daemon().name(namePrefix + "-" + made.incrementAndGet()).unstarted(() -> {
      ThreadNiceness.setForCurrentThread(priority.niceness());
      task.run();
    });
  }

  @Override
  public void parkNanos(Object blocker, long nanos) {
    LockSupport.parkNanos(blocker, nanos);
  }

  @Override
  public void sleepMillis(long millis) throws InterruptedException {
    Thread.sleep(millis);
  }
}
