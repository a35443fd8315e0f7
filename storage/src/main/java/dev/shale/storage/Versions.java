package dev.shale.storage;

/**
 * Record versions are hybrid logical clock timestamps packed in a long:
 * {@code physical milliseconds since the Unix epoch << 16 | logical counter}.
 *
 * <p>Comparing two versions as signed longs orders them in time (the top bit stays clear until
 * {@link #MAX_PHYSICAL_MILLIS}, in the year 6429). The engine's clock ({@link HybridClock}) and, later, the cluster
 * coordinator's produce versions in this form, and tombstone expiry reads the physical part.
 *
 * <p>Do not change: versions are embedded in on-disk data (docs/format.md).
 */
public final class Versions {
  public static final int LOGICAL_BITS = 16;
  public static final long LOGICAL_MASK = (1L << LOGICAL_BITS) - 1;
  /** The highest physical time a version holds without its top bit set. */
  public static final long MAX_PHYSICAL_MILLIS = Long.MAX_VALUE >>> LOGICAL_BITS;

  private Versions() {}

  public static long of(long physicalMillis, int logical) {
    return (physicalMillis << LOGICAL_BITS) | (logical & LOGICAL_MASK);
  }

  public static long physicalMillis(long version) {
    return version >>> LOGICAL_BITS;
  }

  public static int logical(long version) {
    return (int) (version & LOGICAL_MASK);
  }
}
