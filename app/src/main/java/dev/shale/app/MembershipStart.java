package dev.shale.app;

import dev.shale.app.membership.RaftMembership;
import dev.shale.app.membership.RaftTls;
import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Topology;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import dev.shale.cluster.membership.RaftAddress;
import dev.shale.cluster.membership.TopologyListener;
import dev.shale.server.tls.NodeTls;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * How a cluster node's membership starts (docs/design.md, "Membership"), in this order of precedence:
 * <ol>
 *   <li>its data directory holds a Raft group: a restart, with the map it stored ({@code --cluster}
 *       and {@code --join} are then ignored, with a warning when they disagree);
 *   <li>{@code --join URL}: a new member of the cluster that URL's node belongs to;
 *   <li>{@code --cluster URLs}: a new cluster of these nodes, each with the default Raft port.
 * </ol>
 *
 * @param membership this node's Raft member
 * @param topology the members to serve with at start (the map's, or {@code --cluster}'s)
 */
record MembershipStart(RaftMembership membership, Topology topology) {
  private static final System.Logger LOG = System.getLogger("dev.shale.app.shale");
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(90);

  /** What the command line says of the node's membership. */
  /** @param replicationFactor {@code --replication-factor}, which a bootstrap records in the map; null: the default */
  record Options(String host, int port, @Nullable List<String> clusterUrls, @Nullable String joinUrl, @Nullable Integer raftPort,
      @Nullable Integer replicationFactor) {}

  /** Whether the node runs Raft at all: a node alone (no --cluster, --join, nor stored group) does not. */
  static boolean needed(Path dataDir, Options options) {
    return options.clusterUrls() != null || options.joinUrl() != null || RaftMembership.hasStoredGroup(dataDir);
  }

  /**
   * Starts this node's Raft member; {@code listener} hears every change it applies.
   *
   * @param signatures signs a join's calls to its member (null: a node without a secret)
   * @param completesAtOnce true while no data movement is wired: joins become normal, and leaves
   *     removals, as soon as they are committed ({@link RaftMembership#start})
   * @param tls the node's TLS with a cluster CA: a join's calls to its member, and the Raft group,
   *     run over mutual TLS with the node's certificate (docs/design.md, "Security"); null: in clear
   * @throws StartupException with a one-line reason when it cannot
   */
  static MembershipStart start(Path dataDir, Options options, @Nullable AdminSignatures signatures, TopologyListener listener,
      boolean completesAtOnce, @Nullable NodeTls tls) {
    NodeAddress self = selfAddress(options);
    RaftTls raftTls = tls == null ? null : new RaftTls(tls);
    if (RaftMembership.hasStoredGroup(dataDir)) return restart(dataDir, self, options, listener, completesAtOnce, raftTls);
    if (options.joinUrl() != null) {
      return join(dataDir, self, options, signatures, listener, completesAtOnce, tls == null ? null : tls.peerHttps(), raftTls);
    }
    return bootstrap(dataDir, self, options, listener, completesAtOnce, raftTls);
  }

  private static MembershipStart restart(Path dataDir, NodeAddress selfByOptions, Options options, TopologyListener listener,
      boolean completesAtOnce, @Nullable RaftTls tls) {
    Optional<ClusterMap> stored = RaftMembership.storedMap(dataDir);
    List<String> clusterUrls = options.clusterUrls();
    Topology bootstrap = clusterUrls == null ? null : Topology.fromUrls(clusterUrls, options.host(), options.port());
    List<NodeAddress> bootstrapNodes = bootstrap == null ? null : bootstrap.nodes();
    Topology topology;
    int raftPort;
    ClusterMap assumed;
    NodeAddress self = selfByOptions;
    Optional<NodeAddress> storedSelf = stored.flatMap(map -> selfIn(map, options));
    if (stored.isPresent() && storedSelf.isPresent()) {
      ClusterMap map = stored.get();
      self = storedSelf.get();
      topology = new Topology(map.addresses(), self);
      raftPort = port(map.member(self).get().raftAddress());
      assumed = map;
      if (bootstrapNodes != null && !new HashSet<>(bootstrapNodes).equals(new HashSet<>(map.addresses()))) {
        LOG.log(Level.WARNING, "--cluster " + bootstrapNodes + " ignored: this node uses its stored cluster map (version "
            + map.version() + ": " + map.addresses() + "); --cluster only bootstraps a new cluster");
      }
      if (options.joinUrl() != null) LOG.log(Level.WARNING, "--join ignored: this node is a member already (stored cluster map)");
    } else if (bootstrap != null) {
      // Stopped before the bootstrap was applied here: the group is stored, the map is not yet.
      self = bootstrap.self();
      topology = bootstrap;
      raftPort = raftPort(options);
      assumed = new ClusterMap(0, bootstrapMembers(bootstrap), replicationFactor(bootstrap, options));
    } else {
      throw new StartupException("this node was removed from its cluster, or has no cluster map yet in " + dataDir
          + "/raft; give --cluster (a new cluster) or delete " + dataDir + "/raft and --join a cluster");
    }
    return new MembershipStart(startRaft(dataDir, self, options.host(), raftPort, new RaftMembership.Start.Recover(assumed),
        listener, completesAtOnce, tls), topology);
  }

  private static MembershipStart bootstrap(Path dataDir, NodeAddress self, Options options, TopologyListener listener,
      boolean completesAtOnce, @Nullable RaftTls tls) {
    List<String> urls = Objects.requireNonNull(options.clusterUrls());
    Topology topology = Topology.fromUrls(urls, options.host(), options.port());
    if (options.raftPort() != null && options.raftPort() != RaftAddress.defaultPort(options.port())) {
      throw new StartupException("--raft-port: a --cluster bootstrap uses every node's default Raft port (HTTP port + "
          + RaftAddress.DEFAULT_OFFSET + ", or - when that exceeds 65535): " + RaftAddress.defaultPort(options.port()));
    }
    RaftMembership membership = startRaft(dataDir, self, options.host(), RaftAddress.defaultPort(options.port()),
        new RaftMembership.Start.Bootstrap(bootstrapMembers(topology), replicationFactor(topology, options)), listener, completesAtOnce, tls);
    return new MembershipStart(membership, topology);
  }

  /**
   * Asks the member at {@code --join} for the map, starts a Raft server with an empty
   * configuration (the members add it), then asks the member to add this node; returns once the
   * member answered with a map that has this node.
   */
  private static MembershipStart join(Path dataDir, NodeAddress self, Options options, @Nullable AdminSignatures signatures,
      TopologyListener listener, boolean completesAtOnce, @Nullable SSLContext peerHttps, @Nullable RaftTls tls) {
    if (self.host().equals("0.0.0.0") || self.host().equals("::")) {
      throw new StartupException("--join needs --host to be the address the other members reach this node at, not " + self.host());
    }
    NodeAddress member = NodeAddress.parse(Objects.requireNonNull(options.joinUrl()));
    TopologyCalls calls = new TopologyCalls(new AdminClient(member, peerHttps, signatures, JOIN_TIMEOUT, null));
    int raftPort = raftPort(options);
    String raftAddress = RaftAddress.of(self.host(), raftPort);
    ClusterMap current;
    try {
      current = calls.map();
    } catch (AdminCallException e) {
      throw new StartupException("--join: " + e.getMessage(), e);
    }
    if (current.isEmpty()) throw new StartupException("--join " + member + ": that cluster is not bootstrapped yet; retry");
    RaftMembership membership = startRaft(dataDir, self, options.host(), raftPort,
        new RaftMembership.Start.Join(), listener, completesAtOnce, tls);
    try {
      LOG.log(Level.INFO, "joining the cluster of " + member + " (map version " + current.version() + ": "
          + current.addresses() + ") as " + self + ", Raft on " + raftAddress);
      ClusterMap joined = calls.join(self, raftAddress);
      membership.assume(joined);
      LOG.log(Level.INFO, "joined: cluster map version " + joined.version() + ": " + joined.addresses());
      return new MembershipStart(membership, new Topology(joined.addresses(), self));
    } catch (AdminCallException e) {
      leave(dataDir, membership);
      throw new StartupException("--join: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      leave(dataDir, membership);
      throw e;
    }
  }

  /** The members of a --cluster bootstrap: every node normal, at its default Raft address. */
  private static List<Member> bootstrapMembers(Topology topology) {
    return topology.nodes().stream()
        .map(n -> new Member(n, RaftAddress.of(n.host(), RaftAddress.defaultPort(n.port())), MemberState.NORMAL, "")).toList();
  }

  /**
   * The replication factor a new cluster's map records: {@code --replication-factor}, else 3, or
   * every node of a smaller cluster. The map's, not each node's flag, is what every member then
   * uses: the data movement of a node change keeps that many copies of each key.
   */
  private static int replicationFactor(Topology topology, Options options) {
    return options.replicationFactor() != null ? options.replicationFactor() : Cluster.defaultReplicationFactor(topology.size());
  }

  /** This node in {@code map}, found as {@code --cluster} finds it (any address of this machine with --host 0.0.0.0). */
  private static Optional<NodeAddress> selfIn(ClusterMap map, Options options) {
    try {
      return Optional.of(Topology.fromUrls(map.addresses().stream().map(NodeAddress::url).toList(), options.host(), options.port()).self());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static NodeAddress selfAddress(Options options) {
    try {
      return NodeAddress.parse("http://" + (options.host().indexOf(':') >= 0 ? "[" + options.host() + "]" : options.host())
          + ":" + options.port());
    } catch (IllegalArgumentException e) {
      throw new StartupException("--host/--port: " + e.getMessage(), e);
    }
  }

  /** Not a member: forgets the Raft storage made for the join, so that the node may --join again. */
  private static void leave(Path dataDir, RaftMembership membership) {
    membership.close();
    deleteTree(dataDir.resolve(RaftMembership.RAFT_DIR));
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "cannot delete " + root + " after the failed join (" + e.getMessage() + "); delete it before joining again");
    }
  }

  /** {@link RaftMembership#start}, its failure to start (a taken port, unreadable storage) a one-line startup error. */
  private static RaftMembership startRaft(Path dataDir, NodeAddress self, String raftHost, int raftPort, RaftMembership.Start start,
      TopologyListener listener, boolean completesAtOnce, @Nullable RaftTls tls) {
    try {
      return RaftMembership.start(dataDir, self, raftHost, raftPort, start, listener, completesAtOnce, tls);
    } catch (UncheckedIOException e) {
      throw new StartupException(e.getMessage(), e);
    }
  }

  private static int raftPort(Options options) {
    return options.raftPort() != null ? options.raftPort() : RaftAddress.defaultPort(options.port());
  }

  private static int port(String raftAddress) {
    return Integer.parseInt(raftAddress.substring(raftAddress.lastIndexOf(':') + 1));
  }

}
