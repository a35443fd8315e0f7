package dev.shale.cluster.coordination;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.handoff.PlacementChange;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ReplicaPlacement} of a node that learns of node changes through the handoff's own
 * seam ({@link #begin}, {@link #commit}) rather than from the cluster map: between the two, reads
 * follow the placement before the change and writes go to its replicas plus the pending ones, by
 * the rule {@link ReplicaPlacement} states.
 *
 * <p>Thread safe: one volatile snapshot; each request reads it once.
 */
public final class ReplicaSets implements ReplicaPlacement {
  private volatile State state;

  public ReplicaSets(Placement placement) {
    this.state = new State(placement, null);
  }

  /** The placement reads follow: the one before a pending change. */
  public Placement placement() {
    return state.placement;
  }

  /** The change under way, or null. */
  public @Nullable PlacementChange pending() {
    return state.pending;
  }

  /**
   * A change began: writes go to both placements from now on.
   *
   * @throws IllegalStateException if another change is pending (the membership serialises them)
   */
  public synchronized void begin(PlacementChange change) {
    State now = state;
    if (now.pending != null && !now.pending.equals(change)) {
      throw new IllegalStateException("a node change is already pending: " + now.pending.after().topology().nodes());
    }
    state = new State(change.before(), change);
  }

  /** The change is final: reads and writes follow its placement after. */
  public synchronized void commit(PlacementChange change) {
    state = new State(change.after(), null);
  }

  @Override
  public List<NodeAddress> replicas(byte[] key, int from) {
    return state.placement.preferenceList(key, from);
  }

  @Override
  public Writes writeReplicas(byte[] key, int from) {
    State now = state;
    List<NodeAddress> replicas = now.placement.preferenceList(key, from);
    if (now.pending == null) return new Writes(replicas, replicas, FIXED);
    Placement after = now.pending.after();
    return new Writes(replicas, after.preferenceList(key, Math.min(from, after.topology().size())), FIXED);
  }

  private record State(Placement placement, @Nullable PlacementChange pending) {}
}
