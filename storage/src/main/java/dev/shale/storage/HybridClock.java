package dev.shale.storage;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A hybrid logical clock (Kulkarni et al., 2014) issuing {@link Versions}: every version it
 * returns is higher than every version it returned, observed or recovered before, and stays close
 * to the wall clock. A wall clock that goes backwards, or lags another node's, only makes the
 * logical counter advance.
 *
 * <p>Versions from elsewhere (another node, a caller of {@link Engine#write}) are believed only
 * up to {@link #MAX_AHEAD_MILLIS} ahead of the wall clock: a version further ahead is not a time
 * any clock of the cluster can read, and following it would let one absurd version (up to
 * {@link Long#MAX_VALUE}) drag the clock to where it cannot advance. The engine's own stored
 * versions are followed whatever they are ({@link #recover}).
 *
 * <p>Thread safe and lock free.
 */
public final class HybridClock {
  /**
   * How far ahead of the wall clock a version from elsewhere may be, in milliseconds: twice the
   * 30 s within which the nodes' clocks are to agree (docs/design.md, "The version-skew bound").
   * A genuine version is at most the highest wall clock of the cluster, so while the clocks agree
   * it is never refused for this.
   */
  public static final long MAX_AHEAD_MILLIS = 60_000;

  private static final System.Logger LOG = System.getLogger(HybridClock.class.getName());
  private static final ThrottledLog IGNORED_LOG = new ThrottledLog(LOG, Level.WARNING, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private final LongSupplier wallMillis;
  // Invariants: the highest version issued, observed or recovered so far; never negative; it only
  // grows, and next() never moves it past Long.MAX_VALUE (there it fails instead of wrapping).
  private final AtomicLong last = new AtomicLong();

  public HybridClock(LongSupplier wallMillis) {
    this.wallMillis = wallMillis;
  }

  /**
   * A version higher than any issued, observed or recovered before.
   *
   * @throws StorageException if the clock is at {@link Long#MAX_VALUE} (stored data holds a
   *     version that high) or the wall clock reads a time no version can hold
   */
  public long next() {
    long wall = Versions.of(wallNow(), 0);
    return last.updateAndGet(prev -> {
      if (prev == Long.MAX_VALUE) {
        throw new StorageException("the clock cannot advance: it is at the highest version, " + Long.MAX_VALUE
            + ", which stored data holds (written before versions from elsewhere were bounded); writes fail rather than"
            + " take a lower version that would lose to it");
      }
      return Math.max(prev + 1, wall);
    });
  }

  /**
   * Moves the clock past {@code version}, seen from another node, unless it is further ahead of
   * the wall clock than {@link #MAX_AHEAD_MILLIS}: such a version is ignored (and logged, at most
   * once per 10 s). Returns whether the version was taken into account.
   */
  public boolean observe(long version) {
    long ahead = aheadOfWallMillis(version);
    if (ahead > MAX_AHEAD_MILLIS) {
      IGNORED_LOG.log("the clock ignored version " + version + ", " + ahead + " ms ahead of the wall clock (at most "
          + MAX_AHEAD_MILLIS + " ms are believed)");
      return false;
    }
    last.accumulateAndGet(version, Math::max);
    return true;
  }

  /**
   * Moves the clock past {@code version}, found in the engine's own stored data, whatever it is:
   * a wall clock that went back since it was written must not make a new write lose to it. A
   * stored version at {@link Long#MAX_VALUE} makes {@link #next} fail rather than wrap.
   */
  public void recover(long version) {
    if (version < 0) throw new IllegalArgumentException("a version is never negative: " + version);
    last.accumulateAndGet(version, Math::max);
  }

  /**
   * How far {@code version}'s physical time is ahead of the wall clock now, in milliseconds
   * (negative: behind it).
   */
  public long aheadOfWallMillis(long version) {
    return Versions.physicalMillis(version) - wallNow();
  }

  /** Whether {@code version}, from elsewhere, is at most {@link #MAX_AHEAD_MILLIS} ahead of the wall clock. */
  public boolean isWithinReach(long version) {
    return aheadOfWallMillis(version) <= MAX_AHEAD_MILLIS;
  }

  /**
   * The wall clock now, in milliseconds since the epoch: the time versions are made from, which
   * other nodes compare theirs with (the cluster's clock offsets).
   *
   * @throws StorageException if the wall clock reads a time no version can hold
   */
  public long wallMillis() {
    return wallNow();
  }

  /** The highest version issued, observed or recovered so far. */
  public long current() {
    return last.get();
  }

  private long wallNow() {
    long millis = wallMillis.getAsLong();
    if (millis < 0 || millis > Versions.MAX_PHYSICAL_MILLIS) {
      throw new StorageException("the wall clock reads " + millis + " ms since the epoch, outside what a version can hold (0 to "
          + Versions.MAX_PHYSICAL_MILLIS + ")");
    }
    return millis;
  }
}
