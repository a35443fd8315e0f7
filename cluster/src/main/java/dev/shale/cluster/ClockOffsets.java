package dev.shale.cluster;

import dev.shale.storage.HybridClock;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * This node's clock offsets from the members of its cluster, and the fence they make
 * (docs/design.md, "Clock offsets"): a node whose wall clock is more than {@link
 * #MAX_OFFSET_MILLIS} off from a majority of the members coordinates no client's request, since
 * the versions it would stamp could replace acknowledged writes (ahead) or lose to older
 * ones (behind).
 *
 * <p>Each measurement is a round trip: this node's wall clock when it asked, the round trip by
 * its monotonic clock, and the member's wall clock in the answer, read within that round trip.
 * Between measurements an offset is carried forward against this node's monotonic clock, so a
 * step or drift of this node's own wall clock counts at once.
 *
 * <p>Thread safe: measurements arrive on event loops, the fence is asked by every request.
 */
public final class ClockOffsets {
  /**
   * The most a member's clock may be off from this node's and still count as agreeing with it:
   * half the version-skew bound ({@link HybridClock#MAX_AHEAD_MILLIS}), so that two nodes that
   * both agree with a common member are at most the bound apart, and never refuse each other's
   * versions.
   */
  public static final long MAX_OFFSET_MILLIS = HybridClock.MAX_AHEAD_MILLIS / 2;
  /** What two millisecond readings add to a measurement's uncertainty. */
  private static final long READING_MILLIS = 1;

  private static final System.Logger LOG = System.getLogger(ClockOffsets.class.getName());

  private final String selfId;
  private final Supplier<List<NodeAddress>> members;
  private final LongSupplier wallMillis;
  private final LongSupplier monotonicNanos;
  private final long maxOffsetMillis;
  // By member id: its latest measurement. A member measured once keeps it while it is down.
  private final Map<String, Measurement> measurements = new ConcurrentHashMap<>();
  private volatile boolean started;
  // Whether the last fence asked for found this node fenced: its changes are logged, once each.
  private volatile boolean wasFenced;

  /**
   * @param members the cluster map's members now, this node among them
   * @param wallMillis this node's wall clock, the one its versions are made from
   * @param monotonicNanos a clock that never steps ({@link System#nanoTime})
   */
  public ClockOffsets(String selfId, Supplier<List<NodeAddress>> members, LongSupplier wallMillis, LongSupplier monotonicNanos,
      long maxOffsetMillis) {
    if (maxOffsetMillis <= 0) throw new IllegalArgumentException("maxOffsetMillis must be > 0: " + maxOffsetMillis);
    this.selfId = selfId;
    this.members = members;
    this.wallMillis = wallMillis;
    this.monotonicNanos = monotonicNanos;
    this.maxOffsetMillis = maxOffsetMillis;
  }

  /** This node's wall clock now, as a measurement reads it. */
  public long wallMillis() {
    return wallMillis.getAsLong();
  }

  /** This node's monotonic clock now, as a measurement reads it. */
  public long monotonicNanos() {
    return monotonicNanos.getAsLong();
  }

  /**
   * A round trip to {@code memberId}: asked at {@code askedWallMillis} / {@code askedNanos} (this
   * node's clocks, read together), answered with the member's {@code memberWallMillis}, the
   * answer in at {@code answeredNanos}.
   */
  public void measured(String memberId, long askedWallMillis, long askedNanos, long memberWallMillis, long answeredNanos) {
    long roundTripMillis = Math.max(0, answeredNanos - askedNanos) / 1_000_000;
    long offsetMillis = memberWallMillis - (askedWallMillis + roundTripMillis / 2);
    measurements.put(memberId, new Measurement(offsetMillis, roundTripMillis / 2 + READING_MILLIS, askedWallMillis, askedNanos));
  }

  /** The measurements of this node's start are done (answered or failed): from now on the fence counts them. */
  public void markStarted() {
    started = true;
  }

  /** Whether the measurements of this node's start are done: before, it serves no client (its status says "starting"). */
  public boolean isStarted() {
    return started;
  }

  /**
   * Why this node is fenced, one line fit for a 503, or null when it is not: before {@link
   * #started}, and while fewer than a majority of the members (this node counting as one, a
   * member never measured as another) agree with its clock within {@link #MAX_OFFSET_MILLIS}.
   */
  public @Nullable String fence() {
    String reason = reason();
    boolean fenced = reason != null;
    if (fenced != wasFenced) {
      wasFenced = fenced;
      if (fenced) LOG.log(Level.ERROR, "fenced: " + reason);
      else LOG.log(Level.INFO, "clock back within " + maxOffsetMillis + " ms of a majority of the members: serving again");
    }
    return reason;
  }

  private @Nullable String reason() {
    List<NodeAddress> all = members.get();
    int nodes = 1; // this node, whether or not the map names it yet
    int within = 1;
    long wall = wallMillis.getAsLong();
    long nanos = monotonicNanos.getAsLong();
    List<Long> off = new ArrayList<>();
    for (NodeAddress member : all) {
      if (member.id().equals(selfId)) continue;
      nodes++;
      Measurement m = measurements.get(member.id());
      if (m == null) {
        within++; // not measured since this node started: it has been down
        continue;
      }
      long offset = m.offsetNow(wall, nanos);
      if (Math.abs(offset) + m.uncertaintyMillis() <= maxOffsetMillis) within++;
      else off.add(offset);
    }
    if (nodes == 1) return null; // nobody to measure against
    if (!started) return "this node is measuring its clock against the members' and serves once it has";
    if (within > nodes / 2) return null;
    off.sort(null);
    long median = off.get(off.size() / 2); // a member's clock minus this node's
    return "this node's clock is " + Math.abs(median) + " ms " + (median < 0 ? "ahead of" : "behind") + " " + off.size() + " of "
        + nodes + " members (more than " + maxOffsetMillis + " ms apart): it coordinates no request until its clock is back"
        + " within (docs/design.md, \"Clock offsets\")";
  }

  /** Each measured member's offset now (its clock minus this node's), carried forward, by member id. */
  public Map<String, Long> offsetsMillis() {
    long wall = wallMillis.getAsLong();
    long nanos = monotonicNanos.getAsLong();
    Map<String, Long> offsets = new TreeMap<>();
    measurements.forEach((id, m) -> offsets.put(id, m.offsetNow(wall, nanos)));
    return offsets;
  }

  /** Forgets the members no longer in the map, so a member that leaves and comes back is measured afresh. */
  public void retainMembers() {
    List<String> ids = members.get().stream().map(NodeAddress::id).toList();
    measurements.keySet().retainAll(ids);
  }

  /**
   * One round trip's result: {@code offsetMillis} (the member's clock minus this node's) then,
   * within {@code uncertaintyMillis}, with this node's clocks as they read then.
   */
  private record Measurement(long offsetMillis, long uncertaintyMillis, long atWallMillis, long atNanos) {
    /**
     * The offset now: as measured, less how far this node's wall clock moved since beyond what
     * its monotonic clock did (a step, or a drift).
     */
    long offsetNow(long wallNow, long nanosNow) {
      long wallMoved = wallNow - atWallMillis;
      long monotonicMoved = (nanosNow - atNanos) / 1_000_000;
      return offsetMillis - (wallMoved - monotonicMoved);
    }
  }
}
