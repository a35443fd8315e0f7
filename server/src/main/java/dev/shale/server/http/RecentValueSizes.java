package dev.shale.server.http;

import java.util.function.LongSupplier;

/**
 * The largest value this node has lately seen pass (answers it gave, values it coordinated
 * writes of), as an estimate of what a coordinated read's replicas will answer before they do:
 * their answers arrive whole in memory, so a coordinated read reserves that much per replica in
 * the {@link AnswerBudget}. Reserving the largest allowed value instead would let a small heap
 * run one coordinated read at a time; the estimate follows the data actually served.
 *
 * <p>"Lately" is the current and the previous window of {@link #WINDOW_NANOS}: a burst of large
 * values raises the estimate at once, and it comes down within two windows after they stop. The
 * estimate is never below {@code floorBytes} (values that small are not worth tracking) nor
 * above {@code ceilingBytes} (the largest value accepted).
 *
 * <p>What it gives up: until a large value has passed once, reads of large values are reserved
 * at the estimate, so a first burst of them can take the node past its budget by the difference
 * (docs/design.md, "Memory per connection and per node").
 *
 * <p>Thread safe: values at or below the floor, most of them, are dismissed without a lock.
 */
public final class RecentValueSizes {
  static final long WINDOW_NANOS = 10_000_000_000L;

  private final long floorBytes;
  private final long ceilingBytes;
  private final LongSupplier nanoTime;
  // Guarded by this: the largest value noted in the current window (from windowStart) and the one before.
  private long windowStart;
  private long current;
  private long previous;

  /** Windows measured on {@code nanoTime} (the node's Env's monotonic clock). */
  public RecentValueSizes(long floorBytes, long ceilingBytes, LongSupplier nanoTime) {
    this.floorBytes = Math.min(floorBytes, ceilingBytes);
    this.ceilingBytes = ceilingBytes;
    this.nanoTime = nanoTime;
    this.windowStart = nanoTime.getAsLong();
  }

  /** A value of {@code bytes} passed. */
  void note(long bytes) {
    if (bytes <= floorBytes) return;
    synchronized (this) {
      roll(nanoTime.getAsLong());
      current = Math.max(current, bytes);
    }
  }

  /** The estimate of the next value's size: the largest noted lately, within floor and ceiling. */
  synchronized long largest() {
    roll(nanoTime.getAsLong());
    return Math.clamp(Math.max(current, previous), floorBytes, ceilingBytes);
  }

  private void roll(long now) {
    long windows = (now - windowStart) / WINDOW_NANOS;
    if (windows <= 0) return;
    previous = windows == 1 ? current : 0;
    current = 0;
    windowStart += windows * WINDOW_NANOS;
  }
}
