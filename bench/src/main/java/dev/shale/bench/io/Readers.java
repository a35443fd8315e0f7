package dev.shale.bench.io;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a mode's reading threads through one {@link Window} and, meanwhile, samples the whole
 * process's CPU time at the window's start and end: the part of the cost no reading thread's own
 * counters see (the kernel's io_uring workers, should it punt reads to them, the JIT, the GC).
 */
final class Readers {
  /** One reading thread's loop, given its index. */
  @FunctionalInterface
  interface Loop {
    void run(int index) throws Exception;
  }

  private Readers() {}

  /**
   * What the whole process cost in a window.
   *
   * @param cpuNanos its CPU time, or -1 where unknown
   * @param kernelWorkers the io_uring worker threads it had at the window's end ({@link KernelWorkers}), or -1
   */
  record ProcessCost(long cpuNanos, int kernelWorkers) {}

  /** Runs {@code loop} on {@code count} threads; what the process cost in the window. */
  static ProcessCost run(String name, int count, Window window, Loop loop) throws IOException, InterruptedException {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int index = i;
      threads.add(Thread.ofPlatform().name(name + "-" + i).start(() -> {
        try {
          loop.run(index);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    ProcessCost cost;
    try {
      Window.sleepUntil(window.measureFromNanos());
      long before = processCpuNanos();
      Window.sleepUntil(window.endNanos());
      long after = processCpuNanos();
      cost = new ProcessCost(before < 0 || after < 0 ? -1 : after - before, KernelWorkers.count());
    } finally {
      for (Thread thread : threads) thread.join(); // each stops at the window's end by itself
    }
    Throwable failed = failure.get();
    if (failed instanceof IOException e) throw e;
    if (failed != null) throw new IOException(name + " failed: " + failed, failed);
    return cost;
  }

  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
  }
}
