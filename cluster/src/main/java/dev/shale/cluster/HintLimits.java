package dev.shale.cluster;

import dev.shale.storage.HybridClock;

/**
 * The bounds of a coordinator's hints (docs/design.md, "Hinted handoff").
 *
 * @param maxBytes the most hint bytes kept (keys, values and versions of the pending hints, all
 *     targets together); a hint that would pass it is refused
 * @param maxAgeMillis the longest a hint is kept, counted from its version's physical millis: an
 *     older hint is refused when added and dropped when met later. The data store's tombstone
 *     grace period must exceed it (plus clock skew), or a delete that could not be handed off in
 *     time could be undone by a late hint of an older value
 * @param deliveriesPerSecond the most hints delivered per second, all targets together; a hint
 *     larger than {@link #DELIVERY_UNIT_BYTES} counts once per started unit, so large values are
 *     throttled by bytes too
 */
public record HintLimits(long maxBytes, long maxAgeMillis, int deliveriesPerSecond) {
  /** A delivery of a hint counts as one delivery per started 64 KiB of its value. */
  public static final int DELIVERY_UNIT_BYTES = 64 * 1024;

  /**
   * The clock skew between nodes that the tombstone grace period must cover: storage's
   * version-skew bound, {@link HybridClock#MAX_AHEAD_MILLIS} (docs/design.md, "The version-skew
   * bound"). A replica refuses a write whose version is further ahead of its own clock than that,
   * so when two nodes' clocks differ by more, the one behind refuses every write the other
   * coordinates: it is the widest skew a working cluster runs with, twice the 30 s within which
   * the nodes' clocks are to agree. Nothing else bounds it: the handshake does not look at clocks.
   */
  public static final long MAX_CLOCK_SKEW_MILLIS = HybridClock.MAX_AHEAD_MILLIS;

  /**
   * 1 GiB, 3 hours, 1,000 deliveries per second.
   *
   * <ul>
   *   <li>3 hours is Cassandra's {@code max_hint_window}: long enough to ride out a restart, a
   *       reboot or a maintenance window; a replica down for longer is better rebuilt (or healed by
   *       read repair and reads with ack=from) than fed hours of writes. It is well inside the data
   *       store's default tombstone grace period of a day.
   *   <li>1 GiB bounds the disk a dead replica can cost its coordinators: about 10 million hints
   *       of 100-byte values.
   *   <li>1,000 per second is about 6% of one node's stable PUT rate (16,000/s over 64
   *       connections, docs/perf/single-node.md) and half of its single-connection rate, so replay
   *       does not hurt live traffic, while an hour's outage at 1,000 writes per second (a busy
   *       cluster) replays in an hour. With the 64 KiB unit it also caps replay at 64 MiB/s.
   * </ul>
   */
  public static final HintLimits DEFAULT = new HintLimits(1L << 30, 3 * 3_600_000L, 1_000);

  public HintLimits {
    if (maxBytes <= 0) throw new IllegalArgumentException("maxBytes must be > 0: " + maxBytes);
    if (maxAgeMillis <= 0) throw new IllegalArgumentException("maxAgeMillis must be > 0: " + maxAgeMillis);
    if (deliveriesPerSecond < 1) throw new IllegalArgumentException("deliveriesPerSecond must be >= 1: " + deliveriesPerSecond);
  }

  /**
   * Checks that the data store's {@code tombstoneGraceMillis} outlives every hint: it must exceed
   * {@link #maxAgeMillis} (no older hint is sent), plus the time a delivery may take to land
   * ({@link HintedHandoff#DELIVERY_TIMEOUT_MILLIS}), plus the clock skew between the node that
   * keeps a hint (whose clock counts the hint's age) and the replica that purges tombstones (whose
   * clock counts theirs), {@link #MAX_CLOCK_SKEW_MILLIS}. Otherwise a replica could purge a
   * tombstone while an older write of its key still waits in a hint, and the hint would bring the
   * deleted value back.
   *
   * @throws IllegalArgumentException naming the durations
   */
  public void checkTombstoneGrace(long tombstoneGraceMillis) {
    long needed = maxAgeMillis + HintedHandoff.DELIVERY_TIMEOUT_MILLIS + MAX_CLOCK_SKEW_MILLIS;
    if (tombstoneGraceMillis <= needed) {
      throw new IllegalArgumentException("the tombstone grace period (" + tombstoneGraceMillis + " ms) must be longer than the hint age limit ("
          + maxAgeMillis + " ms) plus the delivery timeout (" + HintedHandoff.DELIVERY_TIMEOUT_MILLIS
          + " ms) plus the clock skew between nodes (" + MAX_CLOCK_SKEW_MILLIS + " ms, the version-skew bound)");
    }
  }
}
