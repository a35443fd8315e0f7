package dev.shale.cluster.coordination;

import dev.shale.cluster.NodeAddress;
import java.util.List;

/**
 * Which nodes a request for a key goes to, asked afresh for every request: a fixed
 * {@link dev.shale.cluster.Placement}, or the cluster map as it is now
 * ({@link dev.shale.cluster.membership.ClusterMap#readReplicas}).
 */
@FunctionalInterface
public interface ReplicaPlacement {
  /** The first {@code from} replicas of {@code key}, most preferred first; fewer when the cluster has fewer nodes. */
  List<NodeAddress> replicas(byte[] key, int from);
}
