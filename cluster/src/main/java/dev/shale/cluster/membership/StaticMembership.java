package dev.shale.cluster.membership;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Topology;
import java.util.concurrent.CompletableFuture;

/**
 * The membership of a node that runs no Raft (a node built from a fixed {@link Topology}, as in
 * the server's tests): its map is the topology, every member normal, and it changes never.
 */
public final class StaticMembership implements Membership {
  /** What a static map's replication factor is at most (issue 15: default 3). */
  static final int DEFAULT_REPLICATION_FACTOR = 3;

  private final ClusterMap map;

  private StaticMembership(ClusterMap map) {
    this.map = map;
  }

  public static StaticMembership of(Topology topology) {
    return new StaticMembership(new ClusterMap(0, topology.nodes().stream()
        .map(n -> new Member(n, RaftAddress.of(n.host(), 1), MemberState.NORMAL, "")).toList(),
        Math.min(DEFAULT_REPLICATION_FACTOR, topology.size())));
  }

  @Override
  public boolean changes() {
    return false;
  }

  @Override
  public ClusterMap current() {
    return map;
  }

  @Override
  public CompletableFuture<ClusterMap> change(TopologyChange change) {
    return refused();
  }

  @Override
  public CompletableFuture<ClusterMap> join(NodeAddress address, String raftAddress) {
    return refused();
  }

  @Override
  public CompletableFuture<ClusterMap> remove(NodeAddress address, boolean dead) {
    return refused();
  }

  private static CompletableFuture<ClusterMap> refused() {
    return CompletableFuture.failedFuture(new TopologyChangeRefused(
        "this node's cluster is fixed (it runs without Raft): its members cannot change"));
  }
}
