package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.netns.NamespaceNetwork;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A cluster of real node processes, each in its own network namespace of a {@link
 * NamespaceNetwork} (started by {@code ip netns exec <ns> java ...} on the node's own address),
 * with a shared secret file. {@link #close()} kills every node still running, by PID; the network
 * is the caller's to close, after this.
 */
final class NamespaceCluster implements AutoCloseable {
  private final NamespaceNetwork network;
  private final NodeProcess[] nodes;

  /** Starts a node in every namespace of {@code network}, with {@code extraArgs}, and waits until all serve. */
  NamespaceCluster(NamespaceNetwork network, Path dir, List<String> extraArgs) {
    this.network = network;
    this.nodes = new NodeProcess[network.size()];
    Path secretFile = dir.resolve("secret");
    try {
      SecretFile.write(secretFile, TestCluster.SECRET.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < nodes.length; i++) urls.add(network.nodeUrl(i));
    // The nodes listen on their namespaces' addresses, not loopback: in clear and without tokens,
    // as the faults under test have nothing to do with credentials.
    List<String> args = new ArrayList<>(List.of("--cluster", String.join(",", urls), "--cluster-secret-file", secretFile.toString(),
        "--insecure"));
    args.addAll(extraArgs);
    try {
      start(dir, args);
    } catch (RuntimeException | AssertionError e) {
      close();
      throw e;
    }
  }

  private void start(Path dir, List<String> args) {
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = NodeProcess.start(network.commandPrefix(i), network.nodeAddress(i), NamespaceNetwork.NODE_PORT,
          dir.resolve("node-" + i), TestCluster.NODE_JVM, args);
    }
    for (int i = 0; i < nodes.length; i++) {
      nodes[i].awaitReady(TestCluster.READY);
      // `ip netns exec` execs java in place: the PID we hold is the node's, so signals reach it.
      assertThat(counter(i, "pid")).as("node %d's own pid is the process we started", i).isEqualTo(nodes[i].pid());
    }
  }

  int size() {
    return nodes.length;
  }

  NodeProcess node(int i) {
    return nodes[i];
  }

  EntityClient client(int i) {
    return new EntityClient(network.nodeUrl(i));
  }

  String url(int i) {
    return network.nodeUrl(i);
  }

  /** The number {@code name} in node {@code i}'s {@code GET /v0/status}; -1 when it cannot be read. */
  long counter(int i, String name) {
    return TestCluster.statusNumber(url(i), name);
  }

  @Override
  public void close() {
    for (NodeProcess node : nodes) if (node != null) node.close();
  }
}
