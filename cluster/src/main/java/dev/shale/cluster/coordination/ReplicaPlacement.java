package dev.shale.cluster.coordination;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Which nodes a request for a key goes to, asked afresh for every request: the one place that
 * says it, in normal times and while a node change is pending. A fixed {@link
 * dev.shale.cluster.Placement}, the cluster map as it is now ({@link #following}), or the
 * handoff's {@link ReplicaSets}.
 *
 * <p>While a change is pending, reads go to the replicas before it (the new ones may not hold the
 * key yet), and writes to those plus the key's <em>pending</em> replicas: those after it that are
 * not replicas before it. A write then needs {@code ack} answers of the replicas before the change
 * and {@code ack} of those after it ({@link Tally}): reads find it on a quorum of the set they
 * follow, now (before) and once the change is committed (after). A write made before the change
 * began is on {@code ack} replicas before it; the pending replica takes the copy of the one it
 * replaces (the handoff), so the set after holds it as often.
 */
@FunctionalInterface
public interface ReplicaPlacement {
  /** The first {@code from} replicas of {@code key} to read from, most preferred first; fewer when the cluster has fewer nodes. */
  List<NodeAddress> replicas(byte[] key, int from);

  /** The nodes to read {@code key} from ({@link #replicas}), with the version of the map that named them. */
  default Reads reads(byte[] key, int from) {
    return new Reads(replicas(key, from), FIXED);
  }

  /** The nodes to write {@code key} to: its replicas before and after a pending change. None pending by default. */
  default Writes writeReplicas(byte[] key, int from) {
    List<NodeAddress> replicas = replicas(key, from);
    return new Writes(replicas, replicas, FIXED);
  }

  /** The map version of a placement that no cluster map gives (a fixed cluster): no replica refuses it. */
  long FIXED = 0;

  /** The placement of the cluster map {@code map} gives at each request (both lists from one map). */
  static ReplicaPlacement following(Supplier<ClusterMap> map) {
    return new ReplicaPlacement() {
      @Override
      public List<NodeAddress> replicas(byte[] key, int from) {
        return map.get().readReplicas(key, from);
      }

      @Override
      public Reads reads(byte[] key, int from) {
        ClusterMap now = map.get();
        return new Reads(now.readReplicas(key, from), now.version());
      }

      @Override
      public Writes writeReplicas(byte[] key, int from) {
        ClusterMap now = map.get();
        return new Writes(now.readReplicas(key, from), now.replicasAfterChange(key, from), now.version());
      }
    };
  }

  /**
   * A read's targets.
   *
   * @param nodes the key's replicas, most preferred first
   * @param mapVersion the version of the cluster map that named them ({@link #FIXED} without one):
   *     every request to them carries it, and a replica whose placement is newer refuses it
   *     ({@link dev.shale.cluster.membership.ClusterMap#placementVersion})
   */
  record Reads(List<NodeAddress> nodes, long mapVersion) {
    public Reads {
      nodes = List.copyOf(nodes);
    }
  }

  /**
   * A write's targets.
   *
   * @param before the key's replicas before the pending change, most preferred first: those reads follow now
   * @param after its replicas once the change is committed; equal to {@code before} when none is pending
   * @param mapVersion as for {@link Reads#mapVersion}
   */
  record Writes(List<NodeAddress> before, List<NodeAddress> after, long mapVersion) {
    public Writes {
      before = List.copyOf(before);
      after = after.equals(before) ? before : List.copyOf(after); // the same list: Tally sees one set
    }

    /** Every target once: the replicas before the change, then the pending ones (after it, not before). */
    public List<NodeAddress> nodes() {
      if (after == before) return before;
      List<NodeAddress> nodes = new ArrayList<>(before);
      for (NodeAddress next : after) if (!before.contains(next)) nodes.add(next);
      return nodes;
    }
  }
}
