package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.membership.RaftAddress;
import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code shale cluster}: three nodes that serve over TLS with API tokens by default (or plain with
 * {@code --insecure}), private credentials, what it prints working as printed, and a clean stop
 * on SIGTERM. One cluster per test: each costs seconds.
 */
class ClusterCommandTest {

  @Test
  void startsServesAndStopsALocalCluster(@TempDir Path tmp) throws Exception {
    int base = freeRunOfThree();
    Path data = tmp.resolve("cluster");
    // A soft heap bound as the launcher gives one (1g there), above --node-heap: not for the nodes.
    try (NodeProcess launcher = NodeProcess.startCommand(base + 2, tmp, List.of("-Xmx256m", "-XX:SoftMaxHeapSize=192m"),
        List.of("cluster", "--nodes", "3", "--base-port", Integer.toString(base), "--data", data.toString(),
            "--node-heap", "128m"))) {
      // The launcher's own probe speaks plain HTTP, which a TLS port refuses: wait for the banner,
      // to its last line (the usage lines come after the URLs: read before, they were missing once).
      Await.until("the cluster to print its URLs and how to use them", Duration.ofMinutes(2), () -> {
        if (!launcher.isAlive()) throw new AssertionError("shale cluster exited:\n" + launcher.log());
        return launcher.log().contains("shale cluster of 3 nodes serving") && launcher.log().contains("  ./shale get greeting");
      });
      assertThat(launcher.log()).contains("https://127.0.0.1:" + base, "https://127.0.0.1:" + (base + 1));
      // Issue 36, stumble 10: what it does, said at once and node by node, before the banner.
      String said = launcher.log();
      assertThat(said).contains("starting 3 nodes under " + data, "  node-0 serving at https://127.0.0.1:" + base + " (");
      assertThat(said.indexOf("starting 3 nodes")).isLessThan(said.indexOf("  node-2 serving at"));
      assertThat(said.indexOf("  node-2 serving at")).isLessThan(said.indexOf("shale cluster of 3 nodes serving"));
      String eventLoops = "transport (epoll|nio), "
          + ClusterCommand.ioThreadsPerNode(Runtime.getRuntime().availableProcessors(), 3) + " event loops?\\b";
      for (int i = 0; i < 3; i++) {
        Path log = data.resolve("node-" + i + ".log");
        Await.until("node " + i + "'s startup line, naming its share of the cores", Duration.ofSeconds(60),
            () -> Pattern.compile(eventLoops).matcher(text(log)).find());
      }
      Path ca = data.resolve("certs").resolve("ca.crt");
      Path adminToken = data.resolve("admin.token");
      for (Path secret : List.of(data.resolve("cluster.secret"), adminToken, data.resolve("certs").resolve("ca.key"),
          data.resolve("certs").resolve("node.node-0.key"))) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret))).as(secret.toString()).isEqualTo("rw-------");
      }

      // How to call it, printed: curl with the CA and the admin token, and ./shale with the same.
      String url = "https://127.0.0.1:" + base;
      String curl = "  curl --cacert " + ca + " -H \"Authorization: Bearer $(cat " + adminToken + ")\" ";
      assertThat(said).contains(curl + "'" + url + "/v0/entity?id=greeting'\n", curl + "-X PUT --data-binary hello '" + url);
      String token = Files.readString(adminToken).strip();
      HttpClient https = HttpClient.newBuilder().sslContext(ClientTls.context(ca, null, null)).connectTimeout(Duration.ofSeconds(5)).build();
      for (int i = 0; i < 20; i++) {
        assertThat(send(https, base, "PUT", "id" + i, "through node 0", token).statusCode()).isEqualTo(201);
      }
      for (int i = 0; i < 20; i++) {
        HttpResponse<String> reply = send(https, base + 1 + i % 2, "GET", "id" + i, null, token);
        assertThat(reply.statusCode()).isEqualTo(200);
        assertThat(reply.body()).isEqualTo("through node 0");
      }
      HttpResponse<String> anonymous = send(https, base + 1, "GET", "id0", null, null);
      assertThat(anonymous.statusCode()).as("without the token").isEqualTo(401);
      assertThat(anonymous.body()).contains("requires an API token");
      assertThat(printedCommand(said, "  ./shale put ")).as("./shale put as printed").isEqualTo("OK\n");
      assertThat(printedCommand(said, "  ./shale get ")).as("./shale get as printed").isEqualTo("hello");

      assertThat(launcher.terminate(Duration.ofSeconds(60))).as("exit status after SIGTERM").isZero();
      for (int i = 0; i < 3; i++) {
        EntityClient node = new EntityClient("http://127.0.0.1:" + (base + i));
        assertThat(refuses(node)).as("node %d stopped with the launcher", i).isTrue();
        String log = Files.readString(data.resolve("node-" + i + ".log"));
        assertThat(log).contains("shutdown complete");
        // Stumbles 2 and 10: no SLF4J warning, no Netty channel events and none of Ratis's INFO
        // chatter (its configuration, its elections: debug lines); every line in Shale's format.
        assertThat(log).doesNotContain("SLF4J: ").doesNotContain("LoggingHandler")
            .doesNotContain("INFO  RaftServer").doesNotContain("INFO  LeaderElection");
        assertThat(log.lines().filter(l -> !l.isBlank()))
            .allSatisfy(l -> assertThat(l).matches("\\d{4}-\\d\\d-\\d\\dT\\S+Z (INFO |WARN |ERROR|DEBUG) \\S+: .*"));
      }
    }
  }

  @Test
  void closingTheLauncherOfAFailedTestStopsItsNodesToo(@TempDir Path tmp) throws Exception {
    int base = freeRunOfThree();
    List<ProcessHandle> nodes;
    try (NodeProcess launcher = NodeProcess.startCommand(base + 2, tmp, List.of("-Xmx64m"),
        List.of("cluster", "--insecure", "--nodes", "3", "--base-port", Integer.toString(base), "--data", tmp.resolve("c").toString(),
            "--node-heap", "128m"))) {
      launcher.awaitReady(Duration.ofMinutes(2));
      Await.until("the cluster to print how to call it", Duration.ofSeconds(60),
          () -> launcher.log().contains("plain HTTP and no API tokens (--insecure)"));
      assertThat(launcher.log()).contains("  curl 'http://127.0.0.1:" + base);
      nodes = ProcessHandle.of(launcher.pid()).orElseThrow().descendants().toList();
      assertThat(nodes).as("the launcher's node processes").hasSizeGreaterThanOrEqualTo(3);
    } // closed without the SIGTERM a passing test sends: as when an assertion failed
    for (ProcessHandle node : nodes) {
      Await.until("node " + node.pid() + " gone with its launcher", Duration.ofSeconds(30), () -> !node.isAlive());
    }
  }

  @Test
  void nodesShareTheCoresOutAtOneEventLoopEachAtLeast() {
    assertThat(ClusterCommand.ioThreadsPerNode(2, 3)).isEqualTo(1);
    assertThat(ClusterCommand.ioThreadsPerNode(8, 3)).isEqualTo(2);
    assertThat(ClusterCommand.ioThreadsPerNode(16, 4)).isEqualTo(4);
    assertThat(ClusterCommand.ioThreadsPerNode(1, 1)).isEqualTo(1);
  }

  private static HttpResponse<String> send(HttpClient https, int port, String method, String id, @Nullable String value,
      @Nullable String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/v0/entity?id=" + id))
        .timeout(Duration.ofSeconds(30))
        .method(method, value == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(value));
    if (token != null) request.header("Authorization", "Bearer " + token);
    return https.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Runs the command of the printed line that starts with {@code start} (`./shale ...`, its words
   * split at spaces: the test's paths need no quoting) in this JVM; what it wrote to stdout.
   */
  private static String printedCommand(String printed, String start) {
    String line = printed.lines().filter(l -> l.startsWith(start)).findFirst()
        .orElseThrow(() -> new AssertionError("no line starting with '" + start + "' in:\n" + printed));
    List<String> words = List.of(line.strip().split(" +"));
    ByteArrayOutputStream values = new ByteArrayOutputStream();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Main.commandLine(values, new PrintWriter(out, true), new PrintWriter(err, true))
        .execute(words.subList(1, words.size()).toArray(String[]::new));
    assertThat(status).as(line + ": " + err).isZero();
    return out + values.toString(StandardCharsets.UTF_8);
  }

  private static String text(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean refuses(EntityClient node) {
    try {
      node.get("x");
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** A port p with p, p+1 and p+2 free right now. */
  private static int freeRunOfThree() {
    for (int attempt = 0; attempt < 50; attempt++) {
      int p = FreePort.find();
      // Each node also takes its Raft port (RaftAddress.defaultPort): one in use, by an outgoing
      // connection of another test say, would keep that node from starting.
      if (p + 2 <= 65535 && FreePort.isFree(p + 1) && FreePort.isFree(p + 2) && FreePort.isFree(RaftAddress.defaultPort(p))
          && FreePort.isFree(RaftAddress.defaultPort(p + 1)) && FreePort.isFree(RaftAddress.defaultPort(p + 2))) {
        return p;
      }
    }
    throw new AssertionError("no run of three free ports found");
  }
}
