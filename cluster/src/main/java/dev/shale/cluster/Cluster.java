package dev.shale.cluster;

/**
 * What a node knows about its cluster: where keys live, how internal requests are checked,
 * and the limits of the requests a coordinator sends to other replicas.
 *
 * @param placement the key placement over the cluster's nodes (its topology names this node)
 * @param auth how internal requests are signed and checked
 * @param forwardTimeoutMillis how long a request to another replica may take, from waiting for
 *     a connection to its whole answer ({@code --replica-timeout}); past it that replica counts
 *     as failed
 * @param maxConnectionsPerPeer keep-alive connections kept open to each peer at most; each
 *     carries one request at a time
 * @param maxPendingPerPeer replica requests that may wait for a connection to a peer (at
 *     least 1); past it they fail at once
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
}
