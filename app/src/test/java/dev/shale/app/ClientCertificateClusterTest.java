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
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client certificates as API tokens on a cluster (docs/design.md, "Client certificates"): three
 * real node processes with TLS between them, a client CA and {@code --auth tokens}, credentials
 * from {@code shale certs}. A certificate of token {@code reader} reads on every member; its
 * token's revocation through another member refuses it on every member.
 */
class ClientCertificateClusterTest {
  private static final String BOOTSTRAP = "shale_cert-cluster-test-bootstrap-0123456789abcdef";
  // Raft commits to followers with the next heartbeat: well within a second on an idle machine;
  // the deadline leaves room for a loaded one.
  private static final Duration AGREED = Duration.ofSeconds(10);
  private static final Duration LEADER = Duration.ofSeconds(60);

  @TempDir Path dir;
  private StringWriter err = new StringWriter();

  @Test
  void aCertificatesTokenRevokedThroughOneMemberIsRefusedByEveryMember() throws Exception {
    Path certs = dir.resolve("certs");
    assertThat(run("certs", "ca", "--dir", certs.toString())).as(err.toString()).isZero();
    assertThat(run("certs", "client", "--dir", certs.toString(), "--name", "reader")).as(err.toString()).isZero();
    assertThat(run("certs", "client", "--dir", certs.toString(), "--name", "operator")).as(err.toString()).isZero();
    Path ca = certs.resolve("ca.crt");
    List<Integer> ports = List.of(TestCluster.nodePort(), TestCluster.nodePort(), TestCluster.nodePort());
    List<String> urls = ports.stream().map(p -> "https://127.0.0.1:" + p).toList();
    Path secret = dir.resolve("secret");
    SecretFile.write(secret, TestCluster.SECRET.getBytes(StandardCharsets.UTF_8));
    Path adminToken = dir.resolve("admin.token");
    SecretFile.write(adminToken, BOOTSTRAP.getBytes(StandardCharsets.UTF_8));
    HttpClient reader = client(ca, certs, "reader");
    HttpClient operator = client(ca, certs, "operator");
    List<NodeProcess> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        assertThat(run("certs", "node", "--dir", certs.toString(), "--name", "n" + i, "--host", "127.0.0.1")).as(err.toString()).isZero();
        nodes.add(NodeProcess.start(ports.get(i), dir.resolve("node-" + i), TestCluster.NODE_JVM, List.of(
            "--cluster", String.join(",", urls), "--cluster-secret-file", secret.toString(),
            "--tls-cert", certs.resolve("node.n" + i + ".crt").toString(), "--tls-key", certs.resolve("node.n" + i + ".key").toString(),
            "--tls-cluster-ca", ca.toString(), "--tls-client-ca", ca.toString(),
            "--auth", "tokens", "--admin-token-file", adminToken.toString())));
      }
      for (int i = 0; i < 3; i++) awaitReady(operator, nodes.get(i), urls.get(i));

      addToken(operator, urls.get(0), "reader", "read");
      for (String url : urls) {
        awaitStatus(reader, url, s -> s == 404, AGREED);
        HttpResponse<String> write = send(reader, url, "PUT", "/v0/entity?id=k", null);
        assertThat(write.statusCode()).isEqualTo(403);
        assertThat(write.body().strip()).isEqualTo("token reader lacks the write scope (it has read)");
      }

      assertThat(send(operator, urls.get(1), "DELETE", "/v0/admin/tokens?name=reader", BOOTSTRAP).statusCode()).isEqualTo(200);
      for (String url : urls) {
        long tookMillis = awaitStatus(reader, url, s -> s == 401, AGREED);
        System.out.println("the revocation refused the certificate on " + url + " after " + tookMillis + " ms");
        assertThat(send(reader, url, "GET", "/v0/entity?id=k", null).body()).contains("names token reader, which this node does not know");
      }
      // The members' own calls to each other still pass (node certificates of the cluster CA).
      for (NodeProcess node : nodes) assertThat(node.log()).doesNotContain("no peer connection");
    } finally {
      for (NodeProcess node : nodes) node.close();
    }
  }

  /** Adds a token with the bootstrap admin token, retrying while the cluster has no leader yet (503). */
  private static void addToken(HttpClient client, String url, String name, String scopes) {
    long deadline = System.nanoTime() + LEADER.toNanos();
    while (true) {
      HttpResponse<String> answer = send(client, url, "POST", "/v0/admin/tokens?name=" + name + "&scope=" + scopes, BOOTSTRAP);
      if (answer.statusCode() == 201) return;
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
      if (System.nanoTime() > deadline) throw new AssertionError("no token added within " + LEADER + ": " + answer.body());
      Thread.onSpinWait();
    }
  }

  /** Waits until a GET with {@code client}'s certificate alone answers a status {@code wanted} takes; how long it took. */
  private static long awaitStatus(HttpClient client, String url, IntPredicate wanted, Duration within) {
    long start = System.nanoTime();
    int last;
    do {
      last = send(client, url, "GET", "/v0/entity?id=k", null).statusCode();
      if (wanted.test(last)) return (System.nanoTime() - start) / 1_000_000;
    } while (System.nanoTime() - start < within.toNanos());
    throw new AssertionError(url + " still answered " + last + " after " + within);
  }

  private static void awaitReady(HttpClient client, NodeProcess node, String url) {
    Await.until(url + " to answer /v0/status over TLS", TestCluster.READY, () -> {
      if (!node.isAlive()) throw new AssertionError(url + " exited:\n" + node.log());
      try {
        return send(client, url, "GET", "/v0/status", null).statusCode() == 200;
      } catch (IllegalStateException e) {
        return false;
      }
    });
  }

  private static HttpClient client(Path ca, Path certs, String name) {
    return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
        .sslContext(ClientTls.context(ca, certs.resolve("client." + name + ".crt"), certs.resolve("client." + name + ".key"))).build();
  }

  private static HttpResponse<String> send(HttpClient client, String url, String method, String target, @Nullable String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + target)).timeout(Duration.ofSeconds(30))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) request.header("Authorization", "Bearer " + token);
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private int run(String... args) {
    err = new StringWriter();
    return Main.commandLine(new ByteArrayOutputStream(), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true)).execute(args);
  }
}
