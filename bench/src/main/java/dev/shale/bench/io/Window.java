package dev.shale.bench.io;

/**
 * When a mode's reads count: they start at {@code startNanos}, count from {@code measureFromNanos}
 * (after the warm-up: the JIT has compiled the loop, the disk's queue is full) and stop at {@code
 * endNanos}, all on {@link System#nanoTime}. Every thread of a mode shares one window.
 */
record Window(long startNanos, long measureFromNanos, long endNanos) {
  static Window startingNow(long warmupMillis, long durationMillis) {
    long start = System.nanoTime();
    long measureFrom = start + warmupMillis * 1_000_000;
    return new Window(start, measureFrom, measureFrom + durationMillis * 1_000_000);
  }

  double seconds() {
    return (endNanos - measureFromNanos) / 1e9;
  }

  /** Sleeps until {@code nanoTime}, for the thread that samples the whole process's counters. */
  static void sleepUntil(long nanoTime) throws InterruptedException {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) Thread.sleep(Math.max(1, left / 1_000_000));
  }
}
