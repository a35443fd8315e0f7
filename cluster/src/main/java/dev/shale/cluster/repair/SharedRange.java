package dev.shale.cluster.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import java.util.List;

/**
 * The keys two replicas both hold (docs/format.md, "Repair requests"): those whose first
 * {@code replicas} nodes of the preference list include both {@code a} and {@code b}. With
 * rendezvous placement the keys of one replica set are not one interval of the hash space, so a
 * range is named by the pair and cut into leaves by the hash ({@link RepairTree}).
 *
 * @param placement the cluster's placement, the same on both nodes
 * @param a one node of the cluster
 * @param b another
 * @param replicas copies of each key: 2 to the number of nodes
 */
public record SharedRange(Placement placement, NodeAddress a, NodeAddress b, int replicas) {
  public SharedRange {
    List<NodeAddress> nodes = placement.topology().nodes();
    if (!nodes.contains(a) || !nodes.contains(b)) throw new IllegalArgumentException(a + " or " + b + " is not a node of " + nodes);
    if (a.equals(b)) throw new IllegalArgumentException("a range is shared by two different nodes, not " + a + " and itself");
    if (replicas < 2 || replicas > nodes.size()) {
      throw new IllegalArgumentException("replicas must be in [2, " + nodes.size() + "]: " + replicas);
    }
  }

  /**
   * The range this node ({@code placement}'s self) shares with the node {@code otherId} names,
   * as a peer's request gives it.
   *
   * @throws IllegalArgumentException with a one-line reason: an unknown node, this node, or a
   *     replica count out of range
   */
  public static SharedRange withPeer(Placement placement, String otherId, int replicas) {
    NodeAddress other = placement.topology().nodes().stream()
        .filter(n -> n.id().equals(otherId))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(otherId + " is not a node of this cluster"));
    return new SharedRange(placement, placement.topology().self(), other, replicas);
  }

  public boolean contains(byte[] key) {
    List<NodeAddress> list = placement.preferenceList(key, replicas);
    return list.contains(a) && list.contains(b);
  }

  /** The node of the pair that is not {@code node}. */
  public NodeAddress other(NodeAddress node) {
    return node.equals(a) ? b : a;
  }

  @Override
  public String toString() {
    return a + " and " + b + " (" + replicas + " replicas)";
  }
}
