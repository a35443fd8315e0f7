package dev.shale.storage;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A hybrid logical clock (Kulkarni et al., 2014) issuing {@link Versions}: every version it
 * returns is higher than every version it returned or {@linkplain #observe observed} before, and
 * stays close to the wall clock. A wall clock that goes backwards, or lags another node's, only
 * makes the logical counter advance.
 *
 * <p>Thread safe and lock free.
 */
public final class HybridClock {
  private final LongSupplier wallMillis;
  // Invariant: the highest version issued or observed so far.
  private final AtomicLong last = new AtomicLong();

  public HybridClock(LongSupplier wallMillis) {
    this.wallMillis = wallMillis;
  }

  public static HybridClock system() {
    return new HybridClock(System::currentTimeMillis);
  }

  /** A version higher than any issued or observed before. */
  public long next() {
    long wall = Versions.of(wallMillis.getAsLong(), 0);
    return last.updateAndGet(prev -> Math.max(prev + 1, wall));
  }

  /** Moves the clock past {@code version}, seen in stored data or from another node. */
  public void observe(long version) {
    last.accumulateAndGet(version, Math::max);
  }

  /** The highest version issued or observed so far. */
  public long current() {
    return last.get();
  }
}
