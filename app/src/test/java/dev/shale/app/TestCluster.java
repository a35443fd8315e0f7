package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A cluster of real node processes on loopback for tests: free ports, one data directory per
 * node, a shared secret file. {@link #close()} kills every node still running, by PID.
 */
final class TestCluster implements AutoCloseable {
  static final Duration READY = Duration.ofSeconds(60);
  static final Duration STOP = Duration.ofSeconds(20);
  static final String SECRET = "test-cluster-secret-0123456789";

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
    for (int i = 0; i < size; i++) ports.add(FreePort.find());
    this.placement = new Placement(Topology.fromUrls(urls(), "127.0.0.1", ports.getFirst()));
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
