package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.cluster.membership.RaftAddress;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.PeerWire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A cluster of real node processes on loopback for tests: free ports, one data directory per
 * node, a shared secret file. {@link #close()} kills every node still running, by PID.
 */
final class TestCluster implements AutoCloseable {
  static final Duration READY = Duration.ofSeconds(60);
  static final Duration STOP = Duration.ofSeconds(20);
  static final String SECRET = "test-cluster-secret-0123456789";
  /**
   * The JVM options of a test cluster's nodes, and of the nodes a test starts beside them (a
   * joiner, a member restarted by hand): a small heap, and C1 only, whose compiles take a
   * fraction of the CPU C2's do while the node starts, on CI's two cores shared by all of them.
   */
  static final List<String> NODE_JVM = List.of("-Xmx128m", "-XX:TieredStopAtLevel=1");

  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Path dir;
  private final List<Integer> ports = new ArrayList<>();
  private final List<String> extraArgs;
  private final NodeProcess[] nodes;
  private final Placement placement;
  private final Path secretFile;

  TestCluster(Path dir, int size, List<String> extraArgs) {
    this.dir = dir;
    this.extraArgs = extraArgs;
    this.nodes = new NodeProcess[size];
    for (int i = 0; i < size; i++) ports.add(nodePort());
    this.placement = new Placement(Topology.fromUrls(urls(), "127.0.0.1", ports.getFirst()));
    this.secretFile = dir.resolve("secret");
    try {
      SecretFile.write(secretFile, SECRET.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A free HTTP port whose default Raft port (docs/design.md, "Membership") is free too: every
   * node of a --cluster listens on both.
   */
  static int nodePort() {
    while (true) {
      int port = FreePort.find();
      if (FreePort.isFree(RaftAddress.defaultPort(port))) return port;
    }
  }

  Path dir() {
    return dir;
  }

  Path secretFile() {
    return secretFile;
  }

  /** Starts every node and waits until all serve. */
  TestCluster startAll() {
    for (int i = 0; i < nodes.length; i++) nodes[i] = launch(i, clusterArgs());
    for (NodeProcess node : nodes) node.awaitReady(READY);
    return this;
  }

  List<String> urls() {
    return ports.stream().map(p -> "http://127.0.0.1:" + p).toList();
  }

  int size() {
    return nodes.length;
  }

  EntityClient client(int i) {
    return new EntityClient(urls().get(i));
  }

  NodeProcess node(int i) {
    return nodes[i];
  }

  /** The index of the node that owns {@code id}. */
  int ownerOf(String id) {
    NodeAddress owner = placement.owner(id.getBytes(StandardCharsets.UTF_8));
    return ports.indexOf(owner.port());
  }

  /** The indexes of the first {@code from} nodes of {@code id}'s preference list, most preferred first. */
  List<Integer> replicasOf(String id, int from) {
    return placement.preferenceList(id.getBytes(StandardCharsets.UTF_8), from).stream()
        .map(n -> ports.indexOf(n.port())).toList();
  }

  /** An id whose preference list is {@code order} (node indexes, most preferred first). */
  String idWithReplicas(String prefix, Integer... order) {
    for (int i = 0; ; i++) {
      String id = prefix + "-" + i;
      if (replicasOf(id, order.length).equals(List.of(order))) return id;
    }
  }

  /**
   * What node {@code i} alone holds for {@code id}, read over the internode protocol (a READ is
   * served from the node's own store, never coordinated): 200 with the value, or 404 (nothing,
   * or a tombstone). The connection authenticates as another node of the list, which ends node
   * {@code i}'s down mark of that node (docs/design.md, "The down mark").
   */
  EntityClient.Reply readAlone(int i, String id) throws IOException {
    try (PeerWire peer = peerOf(i)) {
      return switch (peer.read(id.getBytes(StandardCharsets.UTF_8))) {
        case PeerWire.Reply.Value value -> new EntityClient.Reply(200, value.value());
        case PeerWire.Reply.Tombstone ignored -> new EntityClient.Reply(404, new byte[0]);
        case PeerWire.Reply.Absent ignored -> new EntityClient.Reply(404, new byte[0]);
        case PeerWire.Reply other -> throw new IOException("node " + i + " answered a READ with " + other);
      };
    }
  }

  /** A peer connection to node {@code i}, authenticated with the cluster secret as the node after it. */
  PeerWire peerOf(int i) throws IOException {
    return PeerWire.open(ports.get(i), SECRET.getBytes(StandardCharsets.UTF_8), nodeId((i + 1) % ports.size()), nodeId(i));
  }

  /** Node {@code i}'s id, {@code host:port}, as the internode handshake names it. */
  String nodeId(int i) {
    return "127.0.0.1:" + ports.get(i);
  }

  List<String> nodeIds() {
    return ports.stream().map(p -> "127.0.0.1:" + p).toList();
  }

  /** Node {@code i}'s data directory. */
  Path dataDir(int i) {
    return dir.resolve("node-" + i);
  }

  int port(int i) {
    return ports.get(i);
  }

  /** The counter {@code name} of node {@code i}'s {@code GET /v0/status}; -1 when it cannot be read. */
  long counter(int i, String name) {
    return statusNumber(urls().get(i), name);
  }

  /** The number {@code name} in {@code GET <baseUrl>/v0/status}; -1 when it cannot be read. */
  static long statusNumber(String baseUrl, String name) {
    Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(status(baseUrl));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** The body of {@code GET <baseUrl>/v0/status} (whatever its status code), or "" while the node cannot be reached. */
  static String status(String baseUrl) {
    try {
      HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/v0/status"))
          .timeout(Duration.ofSeconds(30)).GET().build();
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while asking " + baseUrl + " for its status", e);
    }
  }

  /** Stops node {@code i} with SIGTERM; asserts it exits 0. */
  void stop(int i) {
    int status = nodes[i].terminate(STOP);
    if (status != 0) throw new AssertionError("node " + i + " exited with " + status + "\n" + nodes[i].log());
  }

  void stopAll() {
    for (int i = 0; i < nodes.length; i++) if (nodes[i].isAlive()) stop(i);
  }

  /** Starts node {@code i} again as a member of the cluster, over its data. */
  void restart(int i) {
    nodes[i] = launch(i, clusterArgs()).awaitReady(READY);
  }

  /** Starts node {@code i} again as a member of the cluster, over its data, without waiting for it to serve. */
  NodeProcess launchAgain(int i) {
    nodes[i] = launch(i, clusterArgs());
    return nodes[i];
  }

  /**
   * Starts every node over its data as a cluster of its own (a one-node --cluster). A node keeps
   * to the cluster map it stored, so each one's map (its Raft directory) is deleted first: it
   * bootstraps a new cluster of one.
   */
  void startEachAlone() {
    for (int i = 0; i < nodes.length; i++) deleteTree(dataDir(i).resolve("raft"));
    for (int i = 0; i < nodes.length; i++) nodes[i] = launch(i, List.of("--cluster", urls().get(i)));
    for (NodeProcess node : nodes) node.awaitReady(READY);
  }

  private List<String> clusterArgs() {
    List<String> args = new ArrayList<>(List.of("--cluster", String.join(",", urls()),
        "--cluster-secret-file", secretFile.toString()));
    args.addAll(extraArgs);
    return args;
  }

  private NodeProcess launch(int i, List<String> args) {
    return NodeProcess.start(ports.get(i), dataDir(i), NODE_JVM, args);
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) return;
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    for (NodeProcess node : nodes) if (node != null) node.close();
  }
}
