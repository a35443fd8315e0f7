package dev.shale.cluster.coordination;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.handoff.PlacementChange;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which nodes a coordinated request goes to: the one place that says it, in normal times and
 * while a node change is pending.
 *
 * <p>In normal times a key's replicas for {@code from} are the first {@code from} nodes of its
 * preference list, for reads and writes. While a change is pending ({@link #begin} to {@link
 * #commit}), reads still go to the placement before it (the new replicas may not hold the key
 * yet), and writes go to the replicas before it plus the key's <em>pending</em> replicas: those
 * after it that are not replicas before it. A write then needs {@code ack} answers plus one per
 * pending replica, among all of them (Cassandra's rule). Why: once the change is committed, reads
 * ask the new replica set; a write acknowledged by {@code ack + p} of the {@code from + p}
 * targets misses at most {@code from - ack} of them, so at least {@code ack} of the new set hold
 * it and every quorum of it meets one of them. Acknowledging on the old set alone would let a
 * write acknowledged by old replicas that leave the set be missed by the new quorum until the
 * stream or a hint brought it. The price: while a change is pending, a write fails when more than
 * {@code from - ack} of its targets fail, as today, but waits for more answers.
 *
 * <p>Thread safe: one volatile snapshot; each request reads it once.
 */
public final class ReplicaSets {
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

  /** The replicas a read of {@code key} asks. */
  List<NodeAddress> readTargets(byte[] key, int from) {
    return state.placement.preferenceList(key, from);
  }

  /** The replicas a write of {@code key} goes to, and the answers it needs among them. */
  WriteTargets writeTargets(byte[] key, Consistency consistency) {
    State now = state;
    List<NodeAddress> replicas = now.placement.preferenceList(key, consistency.from());
    if (now.pending == null) return new WriteTargets(replicas, consistency);
    Placement after = now.pending.after();
    List<NodeAddress> targets = new ArrayList<>(replicas);
    for (NodeAddress next : after.preferenceList(key, Math.min(consistency.from(), after.topology().size()))) {
      if (!targets.contains(next)) targets.add(next);
    }
    int pending = targets.size() - replicas.size();
    return new WriteTargets(List.copyOf(targets), new Consistency(consistency.ack() + pending, targets.size()));
  }

  /** Whether {@code key}'s only target for {@code consistency} is {@code self}, for reads and writes. */
  boolean isLocalOnly(byte[] key, Consistency consistency, NodeAddress self) {
    State now = state;
    if (consistency.from() != 1 || !now.placement.owner(key).equals(self)) return false;
    return now.pending == null || now.pending.after().owner(key).equals(self);
  }

  /**
   * A write's targets and its tally: the replicas first, then the pending ones.
   *
   * @param tally the answers needed ({@code ack}) of all the targets ({@code from})
   */
  record WriteTargets(List<NodeAddress> nodes, Consistency tally) {}

  private record State(Placement placement, @Nullable PlacementChange pending) {}
}
