package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import java.util.List;
import java.util.Set;

/**
 * Which keys one handoff stream carries: those of a {@link PlacementChange} that {@code receiver}
 * gains and whose replicas before the change are one of {@code sources} (so that any node of
 * each of those sets holds them). A source applies it to its records as it streams them (the
 * SCAN's handoff filter, docs/format.md "Internode protocol").
 *
 * <p>Immutable and thread safe.
 *
 * @param change the change under way
 * @param receiver the node that pulls
 * @param sources replica sets before the change, one per range pulled; not empty
 */
public record GainedKeys(PlacementChange change, NodeAddress receiver, Set<Set<NodeAddress>> sources) {
  public GainedKeys {
    sources = Set.copyOf(sources);
    if (sources.isEmpty()) throw new IllegalArgumentException("a handoff stream needs at least one range");
    if (!change.after().topology().nodes().contains(receiver)) {
      throw new IllegalArgumentException(receiver + " is not a node after the change");
    }
  }

  /** Whether {@code key} is one the stream carries. */
  public boolean contains(byte[] key) {
    List<NodeAddress> before = change.replicasBefore(key);
    return !before.contains(receiver) && sources.contains(Set.copyOf(before)) && change.replicasAfter(key).contains(receiver);
  }
}
