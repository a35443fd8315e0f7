package dev.shale.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Runs a number of operations on some threads, closed loop (each thread issues its next
 * operation when the last one returns, like db_bench: this measures capacity, not latency at a
 * given rate), timing each operation into a per-thread HdrHistogram merged at the end.
 *
 * <p>Operation {@code i} goes to thread {@code i mod threads}, each thread taking its indexes in
 * increasing order, so a sequential fill stays nearly sequential with several threads.
 */
final class OperationLoop {
  /** Three significant digits, as the project's latency reports use. */
  static final int SIGNIFICANT_DIGITS = 3;

  /**
   * One kind of operation. {@link #prepare} makes its arguments (keys, values) outside the timed
   * section; {@link #execute} is what is timed.
   */
  interface Operation<T> {
    T prepare(long index, SplittableRandom random);

    /** Runs the operation; returns whether a read found a value (writes: false). */
    boolean execute(T prepared);
  }

  /** What a loop measured: latencies in nanoseconds. */
  record Measured(long ops, double seconds, Histogram latencyNanos, long found) {}

  private final int threads;
  private final long seed;

  OperationLoop(int threads, long seed) {
    this.threads = threads;
    this.seed = seed;
  }

  /**
   * Runs operations {@code 0..ops-1}. If one throws, the others stop, and this rethrows its
   * exception (a RuntimeException or Error as it is; anything else wrapped).
   */
  <T> Measured run(long ops, Operation<T> operation) {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Histogram> histograms = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    LongAdder found = new LongAdder();
    int threadCount = (int) Math.min(threads, ops);
    long startNanos = System.nanoTime();
    for (int t = 0; t < threadCount; t++) {
      Histogram histogram = new Histogram(SIGNIFICANT_DIGITS);
      histograms.add(histogram);
      int thread = t;
      SplittableRandom random = new SplittableRandom(KeyPermutation.mix(seed + 31L * t));
      workers.add(Thread.ofPlatform().name("bench-worker-" + t).start(() -> {
        try {
          long hits = loop(thread, threadCount, ops, operation, random, histogram, failure);
          found.add(hits);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    joinAll(workers);
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    rethrow(failure.get());
    Histogram merged = new Histogram(SIGNIFICANT_DIGITS);
    for (Histogram h : histograms) merged.add(h);
    return new Measured(ops, seconds, merged, found.sum());
  }

  private static <T> long loop(
      int thread, int threadCount, long ops, Operation<T> operation, SplittableRandom random,
      Histogram histogram, AtomicReference<Throwable> failure) {
    long hits = 0;
    for (long i = thread; i < ops && failure.get() == null; i += threadCount) {
      T prepared = operation.prepare(i, random);
      long start = System.nanoTime();
      boolean hit = operation.execute(prepared);
      histogram.recordValue(System.nanoTime() - start);
      if (hit) hits++;
    }
    return hits;
  }

  private static void joinAll(List<Thread> workers) {
    boolean interrupted = false;
    for (Thread worker : workers) {
      while (true) {
        try {
          worker.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // the workers finish their operations; stop only after them
        }
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  private static void rethrow(@Nullable Throwable failure) {
    if (failure == null) return;
    if (failure instanceof RuntimeException e) throw e;
    if (failure instanceof Error e) throw e;
    throw new IllegalStateException(failure);
  }
}
