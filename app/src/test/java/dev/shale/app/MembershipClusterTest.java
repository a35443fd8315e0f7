package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import dev.shale.testkit.EntityClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster map agreed with Raft, on real node processes (docs/design.md, "Membership"): a join,
 * a restart with the stored map, removals of a live and of a dead node, and two joins at once.
 */
class MembershipClusterTest {
  private static final Duration CONVERGE = Duration.ofSeconds(60);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final Pattern MEMBER = Pattern.compile("\\{\"url\": \"([^\"]+)\", \"state\": \"([a-z]+)\"");
  private static final Pattern VERSION = Pattern.compile("\"topology\": \\{\"version\": (\\d+)");

  @TempDir Path dir;

  @Test
  void aFourthNodeJoinsAndARestartedNodeKeepsTheStoredMap() throws IOException {
    try (TestCluster cluster = new TestCluster(dir, 3, List.of()).startAll()) {
      List<String> urls = new ArrayList<>(cluster.urls());
      awaitTopology(urls, urls, "normal");

      int port = TestCluster.nodePort();
      NodeProcess fourth = launchJoining(cluster, port, FreePort.find(), cluster.urls().get(1));
      try {
        fourth.awaitReady(TestCluster.READY);
        urls.add(fourth.baseUrl());
        Topology agreed = awaitTopology(urls, urls, "normal");
        assertThat(agreed.members()).hasSize(4);
        everyWriteIsReadFromEveryNode(urls);

        // Started without --cluster: it serves with the map it stored, which has the fourth node.
        cluster.node(2).terminate(TestCluster.STOP);
        NodeProcess restarted = NodeProcess.start(cluster.port(2), dir.resolve("node-2"), TestCluster.NODE_JVM,
            List.of("--cluster-secret-file", cluster.secretFile().toString()));
        try {
          restarted.awaitReady(TestCluster.READY);
          Topology after = awaitTopology(urls, urls, "normal");
          assertThat(after.version()).isGreaterThanOrEqualTo(agreed.version());
        } finally {
          restarted.close();
        }
      } finally {
        fourth.close();
      }
    }
  }

  @Test
  void theReplicationFactorOfTheBootstrapIsTheOneEveryMemberUsesAJoinerToo() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, List.of("--replication-factor", "2")).startAll()) {
      List<String> urls = new ArrayList<>(cluster.urls());
      awaitTopology(urls, urls, "normal");
      NodeProcess fourth = launchJoining(cluster, TestCluster.nodePort(), FreePort.find(), cluster.urls().get(0));
      try {
        fourth.awaitReady(TestCluster.READY);
        urls.add(fourth.baseUrl());
        awaitTopology(urls, urls, "normal");
        for (String url : urls) {
          String status = TestCluster.status(url);
          assertThat(status).as("the map at %s", url).containsPattern("\"topology\": \\{\"version\": \\d+, \"replicationFactor\": 2,");
          assertThat(status.split("\"replicationFactor\": 2\\b", -1)).as("the map and the node at %s: %s", url, status).hasSize(3);
        }
      } finally {
        fourth.close();
      }
    }
  }

  @Test
  void twoJoinsAtOnceAreSerialisedOrRefusedNeverSplit() {
    try (TestCluster cluster = new TestCluster(dir, 3, List.of()).startAll()) {
      List<String> urls = new ArrayList<>(cluster.urls());
      awaitTopology(urls, urls, "normal");
      NodeProcess d = launchJoining(cluster, TestCluster.nodePort(), FreePort.find(), cluster.urls().get(0));
      NodeProcess e = launchJoining(cluster, TestCluster.nodePort(), FreePort.find(), cluster.urls().get(1));
      try {
        List<NodeProcess> joined = new ArrayList<>();
        for (NodeProcess node : List.of(d, e)) {
          if (awaitReadyOrExit(node)) joined.add(node);
          else assertThat(node.log()).as("a refused join says why").contains("one change at a time");
        }
        assertThat(joined).as("at least one join succeeds").isNotEmpty();
        for (NodeProcess node : joined) urls.add(node.baseUrl());
        // Every member, old and new, converges on the same map of every node that joined.
        awaitTopology(urls, urls, "normal");
      } finally {
        d.close();
        e.close();
      }
    }
  }

  @Test
  void aLiveNodeThenADeadNodeAreRemovedFromEveryRemainingMember() {
    try (TestCluster cluster = new TestCluster(dir, 4, List.of()).startAll()) {
      List<String> urls = new ArrayList<>(cluster.urls());
      awaitTopology(urls, urls, "normal");
      Removal listed = shale("nodes", "list", "--via", cluster.urls().get(2), "--json", "--cluster-secret-file",
          cluster.secretFile().toString());
      assertThat(listed.status()).as(listed.output()).isZero();
      for (String url : urls) assertThat(listed.output()).contains("{\"url\": \"" + url + "\", \"state\": \"normal\"");
      Removal unsigned = shale("nodes", "remove", cluster.urls().get(3), "--via", cluster.urls().get(0));
      assertThat(unsigned.status()).isEqualTo(1);
      assertThat(unsigned.output()).contains("403");

      Removal live = remove(cluster, cluster.urls().get(0), cluster.urls().get(3), false);
      assertThat(live.status()).as(live.output()).isZero();
      assertThat(live.output()).contains("removed " + cluster.urls().get(3));
      awaitTopology(urls.subList(0, 3), urls.subList(0, 3), "normal");
      awaitLog(cluster.node(3), "was removed from the cluster", "it may be stopped");
      // Issue 32: a member removed live kept coordinating, as a cluster of one: its 201s stored
      // nothing any member would ever read. It refuses clients once the removal commits.
      String removed = cluster.urls().get(3);
      for (HttpRequest request : List.of(
          HttpRequest.newBuilder(URI.create(removed + "/v0/entity?id=after-removal"))
              .PUT(HttpRequest.BodyPublishers.ofString("v")).build(),
          HttpRequest.newBuilder(URI.create(removed + "/v0/entity?id=after-removal")).build(),
          HttpRequest.newBuilder(URI.create(removed + "/v0/entities?start=a")).build())) {
        HttpResponse<String> answer = send(request);
        assertThat(answer.statusCode()).as(request.method() + " " + request.uri() + ": " + answer.body()).isEqualTo(503);
        assertThat(answer.body()).contains("removed from the cluster");
      }
      assertThat(send(HttpRequest.newBuilder(URI.create(removed + "/v0/status")).build()).body())
          .contains("\"status\": \"removed\"");

      cluster.node(2).kill();
      Removal dead = remove(cluster, cluster.urls().get(1), cluster.urls().get(2), true);
      assertThat(dead.status()).as(dead.output()).isZero();
      awaitTopology(urls.subList(0, 2), urls.subList(0, 2), "normal");

      Removal again = remove(cluster, cluster.urls().get(0), cluster.urls().get(2), true);
      assertThat(again.status()).isEqualTo(1);
      assertThat(again.output()).contains("409", "not a member");
    }
  }

  private static HttpResponse<String> send(HttpRequest request) {
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** What a command line run in this JVM came to. */
  record Removal(int status, String output) {}

  /** {@code shale nodes remove}, signed with the cluster's secret. */
  static Removal remove(TestCluster cluster, String via, String member, boolean dead) {
    List<String> args = new ArrayList<>(List.of("nodes", "remove", member, "--via", via,
        "--cluster-secret-file", cluster.secretFile().toString()));
    if (dead) args.add("--dead");
    return shale(args.toArray(String[]::new));
  }

  /** Runs the command line {@code args} in this JVM: its exit status and everything it printed. */
  static Removal shale(String... args) {
    StringWriter text = new StringWriter();
    PrintWriter out = new PrintWriter(text, true);
    int status = Main.commandLine(out, out).execute(args);
    return new Removal(status, text.toString());
  }

  private static void awaitLog(NodeProcess node, String... parts) {
    long deadline = System.nanoTime() + CONVERGE.toNanos();
    while (System.nanoTime() < deadline) {
      String log = node.log();
      if (List.of(parts).stream().allMatch(log::contains)) return;
      pauseBriefly();
    }
    throw new AssertionError("the node did not log " + List.of(parts) + ":\n" + node.log());
  }

  /**
   * Writes through every node and reads every write back through every node, at the default
   * consistency (a quorum of the nodes the map reads from): requests go by the live map, and the
   * nodes take the joined node's peer connections.
   */
  private static void everyWriteIsReadFromEveryNode(List<String> urls) throws IOException {
    Map<String, byte[]> written = new HashMap<>();
    for (int i = 0; i < 40; i++) {
      String id = "after-join-" + i;
      byte[] value = ("value-" + i).getBytes(StandardCharsets.UTF_8);
      EntityClient.Reply put = new EntityClient(urls.get(i % urls.size())).put(id, value);
      assertThat(put.status()).as("PUT %s: %s", id, new String(put.body(), StandardCharsets.UTF_8)).isEqualTo(201);
      written.put(id, value);
    }
    for (String url : urls) {
      EntityClient client = new EntityClient(url);
      for (Map.Entry<String, byte[]> e : written.entrySet()) {
        EntityClient.Reply reply = client.getOrFail(e.getKey());
        assertThat(reply.status()).as("GET %s via %s: %s", e.getKey(), url, new String(reply.body(), StandardCharsets.UTF_8))
            .isEqualTo(200);
        assertThat(reply.body()).isEqualTo(e.getValue());
      }
    }
  }

  /** True once the node serves; false when it exits first (a refused join ends the process). */
  private static boolean awaitReadyOrExit(NodeProcess node) {
    long deadline = System.nanoTime() + TestCluster.READY.toNanos();
    while (System.nanoTime() < deadline) {
      if (node.isReady()) return true;
      if (!node.isAlive()) return false;
      pauseBriefly();
    }
    throw new AssertionError("neither served nor exited:\n" + node.log());
  }

  static NodeProcess launchJoining(TestCluster cluster, int port, int raftPort, String member) {
    return NodeProcess.start(port, cluster.dir().resolve("joiner-" + port), TestCluster.NODE_JVM,
        List.of("--join", member, "--raft-port", String.valueOf(raftPort), "--cluster-secret-file", cluster.secretFile().toString()));
  }

  /** The topology of a node's status. */
  record Topology(long version, List<String> members, List<String> states) {}

  /**
   * Waits until every node of {@code asked} reports the same topology: the members {@code expected},
   * each in state {@code state}, at the same version.
   */
  static Topology awaitTopology(List<String> asked, List<String> expected, String state) {
    long deadline = System.nanoTime() + CONVERGE.toNanos();
    List<Topology> seen = List.of();
    while (System.nanoTime() < deadline) {
      seen = asked.stream().map(MembershipClusterTest::topology).toList();
      Topology first = seen.getFirst();
      Predicate<Topology> agreed = t -> t != null && first != null && t.equals(first)
          && t.members().stream().sorted().toList().equals(expected.stream().sorted().toList())
          && t.states().stream().allMatch(state::equals);
      if (seen.stream().allMatch(agreed)) return first;
      pauseBriefly();
    }
    throw new AssertionError("the nodes " + asked + " did not agree on " + expected + " all " + state + " within " + CONVERGE
        + "; last seen: " + seen);
  }

  static Topology topology(String baseUrl) {
    return topologyOf(TestCluster.status(baseUrl));
  }

  /** The topology in a /v0/status body; null when it has none. */
  static Topology topologyOf(String body) {
    Matcher version = VERSION.matcher(body);
    if (!version.find()) return null;
    List<String> members = new ArrayList<>();
    List<String> states = new ArrayList<>();
    Matcher m = MEMBER.matcher(body.substring(version.start()));
    while (m.find()) {
      members.add(m.group(1));
      states.add(m.group(2));
    }
    return new Topology(Long.parseLong(version.group(1)), members, states);
  }

  /** Polling a condition with a deadline: a short wait between probes. */
  private static void pauseBriefly() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
