package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A cluster whose nodes talk to each other over mutual TLS ({@code --tls-cert}, {@code --tls-key},
 * {@code --tls-cluster-ca}), as an operator runs it: certificates from {@code shale certs}, three
 * real node processes on loopback (stopped by PID), clients over https://. And the options that
 * do not go together, refused before anything starts.
 */
class TlsClusterTest {
  @TempDir Path dir;
  private StringWriter err = new StringWriter();

  @Test
  void threeNodesOverMutualTlsStoreReadReplicateAndScan() throws Exception {
    Path certs = dir.resolve("certs");
    assertThat(run("certs", "ca", "--dir", certs.toString())).as(err.toString()).isZero();
    List<Integer> ports = List.of(TestCluster.nodePort(), TestCluster.nodePort(), TestCluster.nodePort());
    List<String> urls = ports.stream().map(p -> "http://127.0.0.1:" + p).toList();
    Path secret = dir.resolve("secret");
    SecretFile.write(secret, TestCluster.SECRET.getBytes(StandardCharsets.UTF_8));
    HttpClient https = HttpClient.newBuilder().sslContext(ClientTls.context(certs.resolve("ca.crt"), null, null))
        .connectTimeout(Duration.ofSeconds(2)).build();
    List<NodeProcess> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        assertThat(run("certs", "node", "--dir", certs.toString(), "--name", "n" + i, "--host", "127.0.0.1")).as(err.toString()).isZero();
        nodes.add(NodeProcess.start(ports.get(i), dir.resolve("node-" + i), TestCluster.NODE_JVM, List.of(
            "--cluster", String.join(",", urls), "--cluster-secret-file", secret.toString(),
            "--tls-cert", certs.resolve("node.n" + i + ".crt").toString(), "--tls-key", certs.resolve("node.n" + i + ".key").toString(),
            "--tls-cluster-ca", certs.resolve("ca.crt").toString())));
      }
      for (int i = 0; i < 3; i++) awaitReady(https, nodes.get(i), ports.get(i));

      assertThat(send(https, ports.get(0), "PUT", "/v0/entity?id=greeting&ack=3", "hello").statusCode()).isEqualTo(201);
      for (int i = 1; i < 3; i++) {
        HttpResponse<String> read = send(https, ports.get(i), "GET", "/v0/entity?id=greeting&ack=3", null);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo("hello");
      }
      for (int k = 0; k < 6; k++) {
        assertThat(send(https, ports.get(k % 3), "PUT", "/v0/entity?id=s-" + k + "&ack=1&from=1", "v" + k).statusCode()).isEqualTo(201);
      }
      HttpResponse<String> scan = send(https, ports.get(2), "GET", "/v0/entities?start=s-&end=s-9&scope=cluster&from=1&ack=1", null);
      assertThat(scan.statusCode()).isEqualTo(200);
      for (int k = 0; k < 6; k++) assertThat(scan.body()).contains("s-" + k);
      String status = send(https, ports.get(1), "GET", "/v0/status", null).body();
      assertThat(status).contains("\"betweenNodes\": \"mutual TLS\"");
      for (NodeProcess node : nodes) assertThat(node.log()).doesNotContain("no peer connection");
    } finally {
      for (NodeProcess node : nodes) node.close();
    }
  }

  @Test
  void aNodeJoinsOverTlsWithHttpsUrls() throws Exception {
    Path certs = dir.resolve("certs");
    assertThat(run("certs", "ca", "--dir", certs.toString())).as(err.toString()).isZero();
    Path secret = dir.resolve("secret");
    SecretFile.write(secret, TestCluster.SECRET.getBytes(StandardCharsets.UTF_8));
    HttpClient https = HttpClient.newBuilder().sslContext(ClientTls.context(certs.resolve("ca.crt"), null, null))
        .connectTimeout(Duration.ofSeconds(2)).build();
    int first = TestCluster.nodePort();
    int joining = TestCluster.nodePort();
    List<NodeProcess> nodes = new ArrayList<>();
    try {
      for (String name : List.of("a", "b")) {
        assertThat(run("certs", "node", "--dir", certs.toString(), "--name", name, "--host", "127.0.0.1")).as(err.toString()).isZero();
      }
      nodes.add(NodeProcess.start(first, dir.resolve("a"), TestCluster.NODE_JVM,
          tlsArgs(certs, "a", secret, "--cluster", "https://127.0.0.1:" + first)));
      awaitReady(https, nodes.get(0), first);
      // The join's calls to its member go over TLS with the node's certificate, then the two are peers.
      nodes.add(NodeProcess.start(joining, dir.resolve("b"), TestCluster.NODE_JVM,
          tlsArgs(certs, "b", secret, "--join", "https://127.0.0.1:" + first)));
      awaitReady(https, nodes.get(1), joining);
      Await.until("a write on both nodes through the joined one", TestCluster.READY,
          () -> send(https, joining, "PUT", "/v0/entity?id=joined&ack=2&from=2", "yes").statusCode() == 201);
      HttpResponse<String> read = send(https, first, "GET", "/v0/entity?id=joined&ack=2&from=2", null);
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(read.body()).isEqualTo("yes");
      for (NodeProcess node : nodes) assertThat(node.log()).doesNotContain("no peer connection");
    } finally {
      for (NodeProcess node : nodes) node.close();
    }
  }

  private static List<String> tlsArgs(Path certs, String name, Path secret, String... more) {
    List<String> args = new ArrayList<>(List.of("--cluster-secret-file", secret.toString(),
        "--tls-cert", certs.resolve("node." + name + ".crt").toString(), "--tls-key", certs.resolve("node." + name + ".key").toString(),
        "--tls-cluster-ca", certs.resolve("ca.crt").toString()));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void tlsOptionsThatDoNotGoTogetherRefuseTheStartWithOneLine() throws Exception {
    Path certs = dir.resolve("certs");
    assertThat(run("certs", "ca", "--dir", certs.toString())).as(err.toString()).isZero();
    assertThat(run("certs", "node", "--dir", certs.toString(), "--name", "n0", "--host", "127.0.0.1")).as(err.toString()).isZero();
    Path other = dir.resolve("other");
    assertThat(run("certs", "ca", "--dir", other.toString())).as(err.toString()).isZero();
    String cert = certs.resolve("node.n0.crt").toString();
    String key = certs.resolve("node.n0.key").toString();
    String ca = certs.resolve("ca.crt").toString();
    Path secret = dir.resolve("secret");
    SecretFile.write(secret, TestCluster.SECRET.getBytes(StandardCharsets.UTF_8));
    int port = TestCluster.nodePort();
    List<String> cluster = List.of("--port", Integer.toString(port), "--cluster",
        "http://127.0.0.1:" + port + ",http://127.0.0.1:" + TestCluster.nodePort(), "--cluster-secret-file", secret.toString());

    assertRefused(List.of("--tls-cluster-ca", ca), "--tls-cert and --tls-key go together (and --tls-client-ca and --tls-cluster-ca need them)");
    assertRefused(concat(cluster, "--tls-cluster-ca", ca), "--tls-cert and --tls-key go together");
    assertRefused(concat(cluster, "--tls-cert", cert, "--tls-key", key), "--tls-cert on a node of a cluster needs --tls-cluster-ca");
    assertRefused(List.of("--tls-cert", cert, "--tls-key", key, "--tls-cluster-ca", ca), "--tls-cluster-ca is for a node of a cluster");
    assertRefused(List.of("--join", "https://127.0.0.1:" + port, "--cluster-secret-file", secret.toString()),
        "https:// URLs in --cluster or --join need --tls-cert, --tls-key and --tls-cluster-ca");
    assertRefused(concat(cluster, "--tls-cert", cert, "--tls-key", key, "--tls-cluster-ca", other.resolve("ca.crt").toString()),
        "cannot serve TLS: the certificate in " + cert + " (CN=n0) is not a node certificate of the cluster CA in " + other.resolve("ca.crt"));
  }

  private void assertRefused(List<String> options, String message) {
    List<String> args = new ArrayList<>(List.of("server", "--data", dir.resolve("data").toString()));
    if (!options.contains("--port")) args.addAll(List.of("--port", "0"));
    args.addAll(options);
    assertThat(run(args.toArray(String[]::new))).as(err.toString()).isEqualTo(Main.USAGE);
    assertThat(err.toString()).startsWith("shale: " + message).hasLineCount(1);
  }

  private static List<String> concat(List<String> first, String... more) {
    List<String> all = new ArrayList<>(first);
    all.addAll(List.of(more));
    return all;
  }

  private static void awaitReady(HttpClient https, NodeProcess node, int port) {
    Await.until("node on port " + port + " to answer /v0/status over TLS", TestCluster.READY, () -> {
      if (!node.isAlive()) throw new AssertionError("node on port " + port + " exited:\n" + node.log());
      try {
        return send(https, port, "GET", "/v0/status", null).statusCode() == 200;
      } catch (IllegalStateException e) {
        return false;
      }
    });
  }

  private static HttpResponse<String> send(HttpClient https, int port, String method, String target, @Nullable String body) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + target)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
    try {
      return https.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private int run(String... args) {
    err = new StringWriter();
    CommandLine commandLine = Main.commandLine(new ByteArrayOutputStream(), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    return commandLine.execute(args);
  }
}
