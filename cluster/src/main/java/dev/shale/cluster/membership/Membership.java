package dev.shale.cluster.membership;

import dev.shale.cluster.NodeAddress;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster map of a node, and how to change it: the changes are agreed by the members (Raft)
 * and applied by every one of them in the same order.
 *
 * <p>Thread safe.
 */
public interface Membership {
  /** Whether the map may change (false: a fixed cluster, its map the topology it started with). */
  boolean changes();

  /** The map this node has applied last. Never blocks. */
  ClusterMap current();

  /**
   * Proposes {@code change} to the members. Completes with the map the change produced once it is
   * applied here, or exceptionally: with {@link TopologyChangeRefused} when the map does not take
   * it (the map is then unchanged), or another exception when the members could not be reached.
   */
  CompletableFuture<ClusterMap> change(TopologyChange change);

  /**
   * Adds {@code address} (whose Raft server listens on {@code raftAddress}) as a joining member,
   * and to the members that agree on the map. Completes with the map that has it, as
   * {@link #change} does.
   */
  CompletableFuture<ClusterMap> join(NodeAddress address, String raftAddress);

  /**
   * Removes {@code address}: it leaves first, then is removed once its copies are where they
   * belong: a live member hands them over while it is leaving, a {@code dead} one's are rebuilt
   * from the other replicas. Completes as {@link #change} does, with the map where it is leaving
   * (or, where nothing moves data, the one without it).
   */
  CompletableFuture<ClusterMap> remove(NodeAddress address, boolean dead);
}
