package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import java.util.HashSet;
import java.util.Set;

/**
 * One range of a {@link PlacementChange}: the keys whose replicas are {@code before} before the
 * change and {@code after} after it. Rendezvous hashing has no contiguous key ranges (a key's
 * replicas depend on its hash mixed with each node's seed), so a range is named by its two
 * replica sets rather than by bounds: every key falls in exactly one range of a change.
 *
 * @param before the key's replicas before the change: where its copies are now (the sources)
 * @param after the key's replicas after the change
 */
public record MovedRange(Set<NodeAddress> before, Set<NodeAddress> after) {
  public MovedRange {
    before = Set.copyOf(before);
    after = Set.copyOf(after);
  }

  /** The nodes that must receive the range: in {@code after}, not in {@code before}. */
  public Set<NodeAddress> gaining() {
    return difference(after, before);
  }

  /** The nodes that drop the range once the change is committed: in {@code before}, not in {@code after}. */
  public Set<NodeAddress> losing() {
    return difference(before, after);
  }

  /** Whether any node gains or loses the range. */
  public boolean moves() {
    return !before.equals(after);
  }

  private static Set<NodeAddress> difference(Set<NodeAddress> a, Set<NodeAddress> b) {
    Set<NodeAddress> left = new HashSet<>(a);
    left.removeAll(b);
    return Set.copyOf(left);
  }
}
