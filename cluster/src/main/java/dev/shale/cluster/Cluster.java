package dev.shale.cluster;

/**
 * What a node knows about its cluster: where keys live, how internal requests are checked,
 * and the limits of forwarding.
 *
 * @param placement the key placement over the cluster's nodes (its topology names this node)
 * @param auth how internal requests are signed and checked
 * @param forwardTimeoutMillis how long a forwarded request may take, from sending it (or
 *     waiting for a connection) to its whole answer; past it the client gets 504
 * @param maxConnectionsPerPeer keep-alive connections kept open to each peer at most; each
 *     carries one request at a time
 * @param maxPendingPerPeer forwarded requests that may wait for a connection to a peer (at
 *     least 1); past it the client gets 503 at once
 */
public record Cluster(
    Placement placement, InternalAuth auth, long forwardTimeoutMillis, int maxConnectionsPerPeer, int maxPendingPerPeer) {

  public Cluster {
    if (forwardTimeoutMillis <= 0) throw new IllegalArgumentException("forwardTimeoutMillis must be > 0: " + forwardTimeoutMillis);
    if (maxConnectionsPerPeer < 1) throw new IllegalArgumentException("maxConnectionsPerPeer must be >= 1: " + maxConnectionsPerPeer);
    if (maxPendingPerPeer < 1) throw new IllegalArgumentException("maxPendingPerPeer must be >= 1: " + maxPendingPerPeer);
    if (!placement.topology().isSingle() && !auth.canSign()) {
      throw new IllegalArgumentException("a multi-node cluster needs a cluster secret or a trusted network");
    }
  }

  /** A node alone: every key is local; internal requests are refused. */
  public static Cluster single(NodeAddress self) {
    return new Cluster(new Placement(Topology.single(self)), InternalAuth.none(), 5_000, 1, 1);
  }

  public Topology topology() {
    return placement.topology();
  }

  /**
   * Where to serve a request for {@code key}: locally if this node owns it or if the request
   * comes from a peer ({@code internal}: a peer forwards only to the owner, and forwarding again
   * could loop while nodes disagree about the cluster), else at the owner.
   */
  public Route route(byte[] key, boolean internal) {
    if (internal || topology().isSingle()) return Route.Local.INSTANCE;
    NodeAddress owner = placement.owner(key);
    return owner.equals(topology().self()) ? Route.Local.INSTANCE : new Route.Forward(owner);
  }
}
