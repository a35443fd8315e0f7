package dev.shale.app;

import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.ReplicaProtocol;
import dev.shale.cluster.SignedContent;
import dev.shale.cluster.Topology;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cluster of real node processes on loopback for tests: free ports, one data directory per
 * node, a shared secret file. {@link #close()} kills every node still running, by PID.
 */
final class TestCluster implements AutoCloseable {
  static final Duration READY = Duration.ofSeconds(60);
  static final Duration STOP = Duration.ofSeconds(20);
  static final String SECRET = "test-cluster-secret-0123456789";

  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Path dir;
  private final List<Integer> ports = new ArrayList<>();
  private final List<String> extraArgs;
  private final NodeProcess[] nodes;
  private final Placement placement;
  private final Path secretFile;
  // One per node, signing in that node's own name, as a tool holding the secret does: a node
  // never sends to itself, so these requests share no replay window with the peers'.
  private final List<InternalAuth> signers = new ArrayList<>();
  private final List<Topology> topologies = new ArrayList<>();

  TestCluster(Path dir, int size, List<String> extraArgs) {
    this.dir = dir;
    this.extraArgs = extraArgs;
    this.nodes = new NodeProcess[size];
    for (int i = 0; i < size; i++) ports.add(FreePort.find());
    for (int port : ports) topologies.add(Topology.fromUrls(urls(), "127.0.0.1", port));
    for (Topology topology : topologies) signers.add(InternalAuth.withSecret(SECRET.getBytes(StandardCharsets.UTF_8), topology));
    this.placement = new Placement(topologies.getFirst());
    this.secretFile = dir.resolve("secret");
    try {
      SecretFile.write(secretFile, SECRET.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
   * What node {@code i} alone holds for {@code id}, read with a signed internal request (served
   * from its own store, never coordinated): 200 with the value, or 404.
   */
  EntityClient.Reply readAlone(int i, String id) throws IOException {
    String target = "/v0/entity?id=" + URLEncoder.encode(id, StandardCharsets.UTF_8);
    SignedContent get = SignedContent.of("GET", target);
    return sendInternal(i, get, new byte[0], sign(i, get));
  }

  /** The {@link InternalAuth#HEADER} value of a request of {@code content} to node {@code i}, signed now in its own name. */
  String sign(int i, SignedContent content) {
    return signers.get(i).sign(() -> content, topologies.get(i).self(), System.currentTimeMillis());
  }

  /**
   * Sends node {@code i} a request as {@code content} says, with {@code body} and
   * {@code signature} in {@link InternalAuth#HEADER} (signed for any content, or none).
   */
  EntityClient.Reply sendInternal(int i, SignedContent content, byte[] body, String signature) throws IOException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(urls().get(i) + content.target()))
        .header(InternalAuth.HEADER, signature)
        .timeout(Duration.ofSeconds(30))
        .method(content.method(), HttpRequest.BodyPublishers.ofByteArray(body));
    if (content.version() != null) request.header(ReplicaProtocol.VERSION_HEADER, content.version());
    try {
      HttpResponse<byte[]> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      return new EntityClient.Reply(response.statusCode(), response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** The counter {@code name} of node {@code i}'s {@code GET /v0/status}; -1 when it cannot be read. */
  long counter(int i, String name) {
    return statusNumber(urls().get(i), name);
  }

  /** The number {@code name} in {@code GET <baseUrl>/v0/status}; -1 when it cannot be read. */
  static long statusNumber(String baseUrl, String name) {
    try {
      HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/v0/status"))
          .timeout(Duration.ofSeconds(30)).GET().build();
      String body = HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
      Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(body);
      return m.find() ? Long.parseLong(m.group(1)) : -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
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

  /** Starts every node over its data as a cluster of its own (a one-node --cluster). */
  void startEachAlone() {
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
    return NodeProcess.start(ports.get(i), dir.resolve("node-" + i), List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), args);
  }

  @Override
  public void close() {
    for (NodeProcess node : nodes) if (node != null) node.close();
  }
}
