package dev.shale.app;

import dev.shale.app.membership.RaftMembership;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Topology;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import dev.shale.cluster.membership.RaftAddress;
import dev.shale.cluster.membership.TopologyListener;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
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
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** What the command line says of the node's membership. */
  record Options(String host, int port, @Nullable List<String> clusterUrls, @Nullable String joinUrl, @Nullable Integer raftPort) {}

  /** Whether the node runs Raft at all: a node alone (no --cluster, --join, nor stored group) does not. */
  static boolean needed(Path dataDir, Options options) {
    return options.clusterUrls() != null || options.joinUrl() != null || RaftMembership.hasStoredGroup(dataDir);
  }

  /**
   * Starts this node's Raft member; {@code listener} hears every change it applies.
   *
   * @param completesAtOnce true while no data movement is wired: joins become normal, and leaves
   *     removals, as soon as they are committed ({@link RaftMembership#start})
   * @throws StartupException with a one-line reason when it cannot
   */
  static MembershipStart start(Path dataDir, Options options, TopologyListener listener, boolean completesAtOnce) {
    NodeAddress self = selfAddress(options);
    if (RaftMembership.hasStoredGroup(dataDir)) return restart(dataDir, self, options, listener, completesAtOnce);
    if (options.joinUrl() != null) return join(dataDir, self, options, listener, completesAtOnce);
    return bootstrap(dataDir, self, options, listener, completesAtOnce);
  }

  private static MembershipStart restart(Path dataDir, NodeAddress selfByOptions, Options options, TopologyListener listener,
      boolean completesAtOnce) {
    Optional<ClusterMap> stored = RaftMembership.storedMap(dataDir);
    List<String> clusterUrls = options.clusterUrls();
    Topology bootstrap = clusterUrls == null ? null : Topology.fromUrls(clusterUrls, options.host(), options.port());
    List<NodeAddress> bootstrapNodes = bootstrap == null ? null : bootstrap.nodes();
    Topology topology;
    int raftPort;
    NodeAddress self = selfByOptions;
    Optional<NodeAddress> storedSelf = stored.flatMap(map -> selfIn(map, options));
    if (stored.isPresent() && storedSelf.isPresent()) {
      ClusterMap map = stored.get();
      self = storedSelf.get();
      topology = new Topology(map.addresses(), self);
      raftPort = port(map.member(self).get().raftAddress());
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
    } else {
      throw new StartupException("this node was removed from its cluster, or has no cluster map yet in " + dataDir
          + "/raft; give --cluster (a new cluster) or delete " + dataDir + "/raft and --join a cluster");
    }
    return new MembershipStart(RaftMembership.start(dataDir, self, options.host(), raftPort, new RaftMembership.Start.Recover(),
        listener, completesAtOnce), topology);
  }

  private static MembershipStart bootstrap(Path dataDir, NodeAddress self, Options options, TopologyListener listener,
      boolean completesAtOnce) {
    List<String> urls = Objects.requireNonNull(options.clusterUrls());
    Topology topology = Topology.fromUrls(urls, options.host(), options.port());
    if (options.raftPort() != null && options.raftPort() != RaftAddress.defaultPort(options.port())) {
      throw new StartupException("--raft-port: a --cluster bootstrap uses every node's default Raft port (HTTP port + "
          + RaftAddress.DEFAULT_OFFSET + ", or - when that exceeds 65535): " + RaftAddress.defaultPort(options.port()));
    }
    List<Member> members = topology.nodes().stream()
        .map(n -> new Member(n, RaftAddress.of(n.host(), RaftAddress.defaultPort(n.port())), MemberState.NORMAL, "")).toList();
    int replicationFactor = Math.min(3, members.size());
    RaftMembership membership = RaftMembership.start(dataDir, self, options.host(), RaftAddress.defaultPort(options.port()),
        new RaftMembership.Start.Bootstrap(members, replicationFactor), listener, completesAtOnce);
    return new MembershipStart(membership, topology);
  }

  /**
   * Asks the member at {@code --join} for the map, starts a Raft server that knows the current
   * members, then asks the member to add this node; returns once the member answered with a map
   * that has this node.
   */
  private static MembershipStart join(Path dataDir, NodeAddress self, Options options, TopologyListener listener,
      boolean completesAtOnce) {
    if (self.host().equals("0.0.0.0") || self.host().equals("::")) {
      throw new StartupException("--join needs --host to be the address the other members reach this node at, not " + self.host());
    }
    String member = trimSlash(Objects.requireNonNull(options.joinUrl()));
    int raftPort = raftPort(options);
    String raftAddress = RaftAddress.of(self.host(), raftPort);
    ClusterMap current = ClusterMapCodec.decode(call(member, "GET", "/v0/admin/topology"));
    if (current.isEmpty()) throw new StartupException("--join " + member + ": that cluster is not bootstrapped yet; retry");
    RaftMembership membership = RaftMembership.start(dataDir, self, options.host(), raftPort,
        new RaftMembership.Start.Join(), listener, completesAtOnce);
    try {
      LOG.log(Level.INFO, "joining the cluster of " + member + " (map version " + current.version() + ": "
          + current.addresses() + ") as " + self + ", Raft on " + raftAddress);
      ClusterMap joined = ClusterMapCodec.decode(call(member, "POST", "/v0/admin/topology/join?url="
          + URLEncoder.encode(self.url(), StandardCharsets.UTF_8) + "&raft=" + URLEncoder.encode(raftAddress, StandardCharsets.UTF_8)));
      LOG.log(Level.INFO, "joined: cluster map version " + joined.version() + ": " + joined.addresses());
      return new MembershipStart(membership, new Topology(joined.addresses(), self));
    } catch (RuntimeException e) {
      // Not a member: forget the Raft storage made for the join, so that the node may --join again.
      membership.close();
      deleteTree(dataDir.resolve(RaftMembership.RAFT_DIR));
      throw e;
    }
  }

  /** The body of a 200 answer of {@code member}; anything else is a StartupException saying what it answered. */
  private static byte[] call(String member, String method, String pathAndQuery) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(member + pathAndQuery)).timeout(JOIN_TIMEOUT)
        .method(method, HttpRequest.BodyPublishers.noBody()).build();
    HttpResponse<byte[]> response;
    try {
      response = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new StartupException("--join: cannot reach " + member + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("--join: interrupted", e);
    }
    if (response.statusCode() != 200) {
      throw new StartupException("--join: " + member + " answered " + response.statusCode() + " to " + method + " "
          + pathAndQuery.replaceAll("\\?.*", "") + ": " + new String(response.body(), StandardCharsets.UTF_8).strip());
    }
    return response.body();
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

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "cannot delete " + root + " after the failed join (" + e.getMessage() + "); delete it before joining again");
    }
  }

  private static int raftPort(Options options) {
    return options.raftPort() != null ? options.raftPort() : RaftAddress.defaultPort(options.port());
  }

  private static int port(String raftAddress) {
    return Integer.parseInt(raftAddress.substring(raftAddress.lastIndexOf(':') + 1));
  }

  private static String trimSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
