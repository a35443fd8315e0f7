package dev.shale.server.peer;

import dev.shale.cluster.membership.ClusterMap;
import dev.shale.storage.Env;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The replica side of the map fence (docs/design.md, "Handoff"): this node serves a replica read
 * or write only if the coordinator named this node with a cluster map at least as new as this
 * node's placement ({@link ClusterMap#placementVersion}), and it can wait until the writes it
 * admitted under an older placement are done.
 *
 * <p>Why: a handoff pulls a range from a source's store once. A write whose coordinator still
 * follows the map before the change (it applies the change a moment later) goes to the old
 * replicas only; landing on a source after the pull passed its key, it would reach no new
 * replica, and once the change is committed a quorum of the new replicas could miss it. So every
 * replica request carries its coordinator's map version: a replica that applied the change
 * refuses the older ones (the coordinator counts a failure, the client may retry), and a source
 * starts a pull only once it applied the change and every write it admitted before it is in its
 * store ({@link #awaitApplied}). Reads are fenced too: after the commit a lagging
 * coordinator would read the old replicas, some of which dropped their copies.
 *
 * <p>Writes are counted per <em>epoch</em>, one per placement version this node has seen. The
 * invariant {@link #awaitApplied} relies on: a write is counted in the epoch that was
 * current when it was admitted, and an epoch that is no longer current admits nothing more (a
 * write that entered it as it was replaced leaves again and retries in the new one).
 *
 * <p>Thread safe: called on the event loops, the storage workers and the scan threads.
 */
public final class MapFence {
  private final Supplier<ClusterMap> map;
  private final Env env; // the clock and the parking of awaitApplied
  private volatile Epoch current = new Epoch(0, null);

  /**
   * @param map this node's cluster map as it is now
   * @param env the node's
   */
  public MapFence(Supplier<ClusterMap> map, Env env) {
    this.map = map;
    this.env = env;
  }

  /** Why a request addressed with {@code mapVersion} is refused here, or null when it is served. */
  public @Nullable String refusal(long mapVersion) {
    long placement = map.get().placementVersion();
    return mapVersion >= placement ? null : staleReason(mapVersion, placement);
  }

  /**
   * Admits a write addressed with {@code mapVersion}: the epoch it is counted in, to {@link
   * Epoch#leave} once the write is in the store (or failed); null when it is refused ({@link
   * #refusal} says why).
   */
  public @Nullable Epoch enter(long mapVersion) {
    while (true) {
      Epoch epoch = currentEpoch();
      epoch.writes.incrementAndGet();
      if (epoch != current) { // replaced meanwhile: its waiters may have seen it empty
        epoch.leave();
        continue;
      }
      if (mapVersion < epoch.placementVersion) {
        epoch.leave();
        return null;
      }
      return epoch;
    }
  }

  /**
   * Waits until this node applied the cluster map of {@code mapVersion} (or a later one) and
   * every write it admitted under a placement older than its current one is in its store: then
   * a scan of its store holds every write a coordinator that had not applied that map reached it
   * with. False if that is not so after {@code timeoutMillis}.
   */
  public boolean awaitApplied(long mapVersion, long timeoutMillis) {
    long deadline = env.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (map.get().version() < mapVersion) {
      if (env.nanoTime() - deadline > 0) return false;
      env.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
    }
    Epoch now = currentEpoch();
    for (Epoch earlier = now.previous; earlier != null; earlier = earlier.previous) {
      while (earlier.writes.get() > 0) {
        if (env.nanoTime() - deadline > 0) return false;
        env.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
      }
    }
    now.previous = null; // drained: no write is counted in them again
    return true;
  }

  /** The epoch of the placement this node has now, made when the map moved on. */
  private Epoch currentEpoch() {
    while (true) {
      Epoch epoch = current;
      long placement = map.get().placementVersion();
      if (placement <= epoch.placementVersion) return epoch;
      Epoch next = new Epoch(placement, epoch);
      synchronized (this) {
        if (current == epoch) current = next;
      }
    }
  }

  static String staleReason(long mapVersion, long placement) {
    return "the coordinator's cluster map (version " + mapVersion + ") is older than this node's placement (since version "
        + placement + "): retry once it has caught up";
  }

  /** The writes admitted under one placement version. */
  public static final class Epoch {
    private final long placementVersion;
    private final AtomicLong writes = new AtomicLong();
    private volatile @Nullable Epoch previous; // older epochs whose writes may be out; null once drained

    private Epoch(long placementVersion, @Nullable Epoch previous) {
      this.placementVersion = placementVersion;
      this.previous = previous;
    }

    /** The write admitted in this epoch is in the store, or failed. */
    public void leave() {
      writes.decrementAndGet();
    }
  }
}
