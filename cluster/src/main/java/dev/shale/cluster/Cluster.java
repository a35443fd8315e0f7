package dev.shale.cluster;

import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Membership;
import dev.shale.cluster.membership.StaticMembership;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a node knows about its cluster: where keys live, how peers authenticate each other,
 * and the limits of the requests a coordinator sends to other replicas.
 *
 * @param placement the key placement over the cluster's nodes (its topology names this node)
 * @param auth how peers prove the cluster secret to each other (the internode handshake)
 * @param forwardTimeoutMillis how long a request to another replica may take, from waiting for
 *     a connection to its whole answer ({@code --replica-timeout}); past it that replica counts
 *     as failed
 * @param maxPendingPerPeer replica requests to one peer that may be in flight or wait for its
 *     connection (at least 1); past it they fail at once
 * @param readSpeculationMillis how long a read waits for the {@code ack} replicas it asked before
 *     it asks the rest of {@code from} too ({@code --read-speculation}); 0: it asks them all at once
 * @param replicationFactor how many nodes keep each key: the first {@code replicationFactor} of
 *     its preference list, and a request's default {@code from} (1 to the number of nodes)
 * @param membership the cluster map and its changes (a fixed map when the node runs no Raft)
 */
public record Cluster(
    Placement placement, InternalAuth auth, long forwardTimeoutMillis, int maxPendingPerPeer, long readSpeculationMillis,
    int replicationFactor, Membership membership) {

  /**
   * The default read speculation: above the p99.9 of a replica read on a healthy loopback or LAN
   * cluster (well under a millisecond at the median, a few at p99.9 under load, docs/perf/cluster.md),
   * so that it asks more replicas only when one is in trouble, and far below the replica timeout.
   */
  public static final long DEFAULT_READ_SPECULATION_MILLIS = 10;

  /** The replication factor of a cluster of at least that many nodes, unless told otherwise. */
  public static final int DEFAULT_REPLICATION_FACTOR = 3;

  /** A cluster with the {@link #DEFAULT_READ_SPECULATION_MILLIS default read speculation} and replication factor. */
  public Cluster(Placement placement, InternalAuth auth, long forwardTimeoutMillis, int maxPendingPerPeer) {
    this(placement, auth, forwardTimeoutMillis, maxPendingPerPeer, DEFAULT_READ_SPECULATION_MILLIS);
  }

  /** A cluster with the default replication factor for its size ({@link #defaultReplicationFactor}). */
  public Cluster(Placement placement, InternalAuth auth, long forwardTimeoutMillis, int maxPendingPerPeer, long readSpeculationMillis) {
    this(placement, auth, forwardTimeoutMillis, maxPendingPerPeer, readSpeculationMillis,
        defaultReplicationFactor(placement.topology().size()));
  }

  /** A cluster whose members never change: its map is the topology's nodes. */
  public Cluster(Placement placement, InternalAuth auth, long forwardTimeoutMillis, int maxPendingPerPeer, long readSpeculationMillis,
      int replicationFactor) {
    this(placement, auth, forwardTimeoutMillis, maxPendingPerPeer, readSpeculationMillis, replicationFactor,
        StaticMembership.of(placement.topology()));
  }

  public Cluster {
    int nodes = placement.topology().size();
    if (replicationFactor < 1) throw new IllegalArgumentException("replicationFactor must be at least 1: " + replicationFactor);
    if (replicationFactor > nodes) {
      throw new IllegalArgumentException("replicationFactor (" + replicationFactor + ") exceeds the cluster's " + nodes
          + " node(s): a key cannot live on more nodes than there are");
    }
    if (readSpeculationMillis < 0) throw new IllegalArgumentException("readSpeculationMillis must be >= 0: " + readSpeculationMillis);
    if (forwardTimeoutMillis <= 0) throw new IllegalArgumentException("forwardTimeoutMillis must be > 0: " + forwardTimeoutMillis);
    if (maxPendingPerPeer < 1) throw new IllegalArgumentException("maxPendingPerPeer must be >= 1: " + maxPendingPerPeer);
    if (!placement.topology().isSingle() && !auth.takesPeers()) {
      throw new IllegalArgumentException("a multi-node cluster needs a cluster secret or a trusted network");
    }
  }

  /** {@link #DEFAULT_REPLICATION_FACTOR}, or every node of a smaller cluster. */
  public static int defaultReplicationFactor(int nodes) {
    return Math.min(DEFAULT_REPLICATION_FACTOR, nodes);
  }

  /** A node alone: every key is local; internal requests are refused. */
  public static Cluster single(NodeAddress self) {
    return new Cluster(new Placement(Topology.single(self)), InternalAuth.none(), 5_000, 1);
  }

  /** The cluster map as this node has it now (the fixed topology's nodes when the node runs no Raft). */
  public ClusterMap map() {
    return membership.current();
  }

  /**
   * Why this node may not coordinate clients' requests, or null: it was removed from the cluster
   * map (a live removal committed, or one it learned of since). A removed node answering as a
   * cluster of one would acknowledge writes that no member ever reads. Null for a fixed cluster
   * and while the map is empty (a node joining).
   */
  public @Nullable String removal() {
    if (!membership.changes()) return null;
    ClusterMap map = map();
    NodeAddress self = topology().self();
    if (map.isEmpty() || map.member(self).isPresent()) return null;
    return "this node (" + self + ") was removed from the cluster (map version " + map.version()
        + "): send requests to its members " + map.addresses() + "; stop this node, or delete its data and --join again";
  }

  /** The nodes requests read from now (the map's normal and leaving members), at least one. */
  public int readableNodes() {
    return Math.max(1, map().readableMembers().size());
  }

  /**
   * Whether this node talks to peers (it has peer connections and coordinates requests): it has a
   * cluster secret or a trusted network, and other members, or a map that may gain some.
   */
  public boolean takesPeers() {
    return auth.takesPeers() && (membership.changes() || !topology().isSingle());
  }

  public Topology topology() {
    return placement.topology();
  }

  /**
   * The placement over the nodes requests read from now (the map's normal and leaving members),
   * this node as its self: what a repair compares, asked afresh for each one, as the coordinator
   * asks the map for each request. When this node is not among them (the map is empty, or this
   * node is joining) it is this node alone: it has no range to repair with anyone yet.
   */
  public Placement livePlacement() {
    NodeAddress self = topology().self();
    List<NodeAddress> readable = map().readableMembers();
    if (readable.equals(topology().nodes())) return placement; // the map is still the nodes at the start
    return new Placement(readable.contains(self) ? new Topology(readable, self) : Topology.single(self));
  }

  /**
   * A request's consistency from its {@code ack} and {@code from} parameters (null: absent),
   * {@code from} defaulting to the replication factor ({@link Consistency#parse}).
   *
   * @throws IllegalArgumentException with a one-line reason fit for a 400
   */
  public Consistency consistency(@Nullable String ack, @Nullable String from) {
    // The nodes the map reads from now: members that joined or left since the start count.
    int nodes = readableNodes();
    return Consistency.parse(ack, from, Math.min(replicationFactor, nodes), nodes);
  }
}
