package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.netns.NamespaceNetwork;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three hosts run a cluster from the release tarball, as docs/deploy.md tells an operator to:
 * each host is a network namespace of its own ({@link NamespaceNetwork}, 10.213.x.0/24, a bridge
 * between them), with its own data directory and copy of the secret file, all running one
 * unpacked tree (as hosts that mount one install would); every node is {@code ip netns exec
 * <host> <tree>/bin/shale server --host <its address>} (no JDK, no Maven on its PATH), on the
 * same port on every host. The founding hosts bootstrap with one
 * {@code --cluster} list; a host is removed with {@code bin/shale nodes remove} and replaced by a
 * fresh one that joins with {@code --join}. Every node is stopped by its PID, and the namespaces
 * and links removed, also when the test fails. Skipped without root or {@code ip}. Runs after
 * {@code package} (tag "release", app/pom.xml).
 */
@Tag("release")
class ReleaseClusterTest {
  private static final Duration COMMAND = Duration.ofMinutes(2);
  private static final int REMOVED = 2;

  private final long startNanos = System.nanoTime();

  @Test
  void threeHostsBootstrapWriteReadAtQuorumRemoveAHostAndJoinItsReplacement(@TempDir Path tmp) throws IOException {
    try (NamespaceNetwork network = NamespaceNetwork.createWithoutFaults(3);
        Hosts hosts = new Hosts(network, tmp)) {
      List<String> urls = hosts.urls();
      for (int i = 0; i < 3; i++) hosts.start(i, List.of("--cluster", String.join(",", urls)));
      for (int i = 0; i < 3; i++) hosts.node(i).awaitReady(TestCluster.READY);
      MembershipClusterTest.awaitTopology(urls, urls, "normal");
      phase("bootstrapped");

      // Writes through each node, read at a quorum (2 of 3) through another.
      Map<String, String> written = new TreeMap<>();
      for (int i = 0; i < 3; i++) write(hosts.client(i), "via-" + i + "-", 10, written);
      for (int i = 0; i < 3; i++) readAll(hosts.client((i + 1) % 3).consistency(2, 3), written);

      // Remove host 2, as an operator on host 0 would; the other two keep acknowledging writes.
      ReleaseTarball.Result removed = hosts.shale(0, "nodes", "remove", urls.get(REMOVED), "--via", urls.get(0),
          "--cluster-secret-file", hosts.secretFile(0).toString());
      assertThat(removed.status()).as("nodes remove: %s", removed.output()).isZero();
      List<String> remaining = urls.subList(0, REMOVED);
      MembershipClusterTest.awaitTopology(remaining, remaining, "normal");
      write(hosts.client(0), "after-removal-0-", 10, written);
      write(hosts.client(1), "after-removal-1-", 10, written);
      readAll(hosts.client(1).consistency(2, 2), written);
      assertThat(hosts.node(REMOVED).terminate(TestCluster.STOP)).as("the removed node's exit status").isZero();
      phase("removed host 2");

      // Its replacement: a fresh data directory on host 2, joining through host 0.
      hosts.start(REMOVED, List.of("--join", urls.get(0)));
      hosts.node(REMOVED).awaitReady(TestCluster.READY);
      MembershipClusterTest.awaitTopology(urls, urls, "normal");
      phase("its replacement joined");
      write(hosts.client(REMOVED), "after-join-", 10, written);
      readAll(hosts.client(0).consistency(3, 3), written); // every replica, the new one too, holds every key
      for (int i = 0; i < 3; i++) assertThat(hosts.node(i).terminate(TestCluster.STOP)).as("node %d's exit status", i).isZero();
      phase("stopped");
    }
  }

  /** Prints how long the test took to reach {@code what}: the phases' cost, for whoever keeps the suite fast (never asserted). */
  private void phase(String what) {
    System.out.println("ReleaseClusterTest: " + what + " after " + (System.nanoTime() - startNanos) / 1_000_000 + " ms");
  }

  private static void write(EntityClient client, String prefix, int count, Map<String, String> written) throws IOException {
    for (int i = 0; i < count; i++) {
      String id = prefix + i;
      String value = "value of " + id;
      assertThat(client.put(id, value.getBytes(StandardCharsets.UTF_8)).status()).as("PUT %s", id).isEqualTo(201);
      written.put(id, value);
    }
  }

  private static void readAll(EntityClient client, Map<String, String> written) throws IOException {
    for (var entry : written.entrySet()) {
      EntityClient.Reply reply = client.get(entry.getKey());
      assertThat(reply.status()).as("GET %s: %s", entry.getKey(), reply.text()).isEqualTo(200);
      assertThat(reply.text()).isEqualTo(entry.getValue());
    }
  }

  /**
   * The three hosts: the unpacked release they run, per host a copy of the secret file and a
   * data directory, and the node running there. {@link #close()} kills every node still running, by
   * PID; the network is the caller's to close, after this.
   */
  private static final class Hosts implements AutoCloseable {
    private final NamespaceNetwork network;
    private final Path dir;
    private final Path tree; // one unpacked release, which every host runs (only data and secrets are a host's own)
    private final NodeProcess[] nodes;
    private final Map<String, String> environment;
    private int starts;

    Hosts(NamespaceNetwork network, Path dir) throws IOException {
      this.network = network;
      this.dir = dir;
      this.tree = ReleaseTarball.unpack(dir.resolve("opt"));
      this.nodes = new NodeProcess[network.size()];
      this.environment = ReleaseTarball.hostWithoutJdk();
      for (int i = 0; i < nodes.length; i++) {
        Files.createDirectories(host(i));
        SecretFile.write(secretFile(i), TestCluster.SECRET.getBytes(StandardCharsets.UTF_8));
      }
    }

    private Path host(int i) {
      return dir.resolve("host-" + i);
    }

    Path secretFile(int i) {
      return host(i).resolve("cluster.secret");
    }

    List<String> urls() {
      List<String> urls = new ArrayList<>();
      for (int i = 0; i < nodes.length; i++) urls.add(network.nodeUrl(i));
      return urls;
    }

    /** Starts a node on host {@code i} over a data directory of its own (a fresh one at each start), with {@code clusterArgs}. */
    void start(int i, List<String> clusterArgs) {
      List<String> command = new ArrayList<>(network.commandPrefix(i));
      command.addAll(List.of(tree.resolve("bin/shale").toString(), "server",
          "--host", network.nodeAddress(i), "--port", Integer.toString(NamespaceNetwork.NODE_PORT),
          "--data", host(i).resolve("data-" + starts++).toString(),
          "--cluster-secret-file", secretFile(i).toString(), "--insecure"));
      command.addAll(clusterArgs);
      Map<String, String> env = new TreeMap<>(environment);
      env.put("SHALE_JAVA_OPTS", "-Xmx128m -XX:TieredStopAtLevel=1");
      nodes[i] = NodeProcess.startExecutable(command, env, network.nodeAddress(i), NamespaceNetwork.NODE_PORT, host(i));
    }

    NodeProcess node(int i) {
      return nodes[i];
    }

    EntityClient client(int i) {
      return new EntityClient(network.nodeUrl(i));
    }

    /** Runs {@code bin/shale <args>} on host {@code i} to its end. */
    ReleaseTarball.Result shale(int i, String... args) {
      List<String> command = new ArrayList<>(network.commandPrefix(i));
      command.add(tree.resolve("bin/shale").toString());
      command.addAll(List.of(args));
      return ReleaseTarball.run(command, environment, host(i).resolve("shale-" + args[0] + ".log"), COMMAND);
    }

    @Override
    public void close() {
      for (NodeProcess node : nodes) if (node != null) node.close();
    }
  }
}
