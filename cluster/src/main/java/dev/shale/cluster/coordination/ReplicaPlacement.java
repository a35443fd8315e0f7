package dev.shale.cluster.coordination;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
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
 * not replicas before it. A write then needs {@code ack} answers plus one per pending replica,
 * among all of them (Cassandra's rule, {@link Writes#tally}): once the change is committed, reads
 * ask the new replica set; a write acknowledged by {@code ack + p} of the {@code from + p}
 * targets misses at most {@code from - ack} of them, so at least {@code ack} of the new set hold
 * it and every quorum of it meets one of them.
 */
@FunctionalInterface
public interface ReplicaPlacement {
  /** The first {@code from} replicas of {@code key} to read from, most preferred first; fewer when the cluster has fewer nodes. */
  List<NodeAddress> replicas(byte[] key, int from);

  /** The nodes to read {@code key} from ({@link #replicas}), with the version of the map that named them. */
  default Reads reads(byte[] key, int from) {
    return new Reads(replicas(key, from), FIXED);
  }

  /** The nodes to write {@code key} to: its read replicas first, then its pending ones. None pending by default. */
  default Writes writeReplicas(byte[] key, int from) {
    List<NodeAddress> replicas = replicas(key, from);
    return new Writes(replicas, replicas.size(), FIXED);
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
        return new Writes(now.writeReplicas(key, from), now.readReplicas(key, from).size(), now.version());
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
   * @param nodes the key's replicas (the first {@code replicas}), then its pending replicas
   * @param replicas how many of {@code nodes} are its replicas before the pending change
   * @param mapVersion as for {@link Reads#mapVersion}
   */
  record Writes(List<NodeAddress> nodes, int replicas, long mapVersion) {
    public Writes {
      nodes = List.copyOf(nodes);
      if (replicas < 0 || replicas > nodes.size()) throw new IllegalArgumentException("replicas out of [0, " + nodes.size() + "]: " + replicas);
    }

    /** The answers a write asked with {@code consistency} needs, of all the targets: one more per pending replica. */
    public Consistency tally(Consistency consistency) {
      int pending = nodes.size() - replicas;
      return pending == 0 ? consistency : new Consistency(consistency.ack() + pending, consistency.from() + pending);
    }
  }
}
