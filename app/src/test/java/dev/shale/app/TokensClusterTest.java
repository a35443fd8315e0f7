package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import dev.shale.testkit.NodeProcess;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-node cluster of real processes started with {@code --auth tokens}: a token added through
 * one member is taken by every member, its revocation through another is seen by every member
 * within the deadline, a restarted member keeps the set, and one restarted without
 * {@code --auth tokens} still requires them (docs/design.md, "API tokens").
 */
class TokensClusterTest {
  private static final String BOOTSTRAP = "shale_cluster-test-bootstrap-secret-0123456789abcdef";
  // Raft commits to followers with the next heartbeat: well within a second on an idle machine;
  // the deadline leaves room for a loaded one.
  private static final Duration AGREED = Duration.ofSeconds(10);
  private static final Duration LEADER = Duration.ofSeconds(60);
  private static final Pattern SECRET = Pattern.compile("\"secret\": \"([^\"]+)\"");
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @TempDir Path dir;

  @Test
  void aRevocationIsSeenByEveryMemberAndARestartedMemberKeepsTheTokens() throws Exception {
    Path adminToken = dir.resolve("admin.token");
    Files.createDirectories(dir);
    SecretFile.write(adminToken, BOOTSTRAP.getBytes(StandardCharsets.UTF_8));
    try (TestCluster cluster = new TestCluster(dir, 3, List.of("--auth", "tokens", "--admin-token-file", adminToken.toString()))
        .startAll()) {
      List<String> urls = cluster.urls();
      String reader = addToken(urls.get(0), "reader", "read,write");
      String keeper = addToken(urls.get(2), "keeper", "read");
      for (String url : urls) {
        awaitStatus(url, "/v0/entity?id=k", reader, s -> s == 404, AGREED);
        awaitStatus(url, "/v0/entity?id=k", keeper, s -> s == 404, AGREED);
        assertThat(call(url, "GET", "/v0/entity?id=k", null).statusCode()).isEqualTo(401);
      }

      assertThat(call(urls.get(1), "DELETE", "/v0/admin/tokens?name=reader", BOOTSTRAP).statusCode()).isEqualTo(200);
      for (String url : urls) {
        long tookMillis = awaitStatus(url, "/v0/entity?id=k", reader, s -> s == 401, AGREED);
        System.out.println("revocation seen by " + url + " after " + tookMillis + " ms");
        assertThat(call(url, "GET", "/v0/entity?id=k", keeper).statusCode()).isEqualTo(404);
      }

      cluster.stop(2);
      cluster.restart(2);
      String restarted = urls.get(2);
      assertThat(call(restarted, "GET", "/v0/entity?id=k", keeper).statusCode()).as("kept across the restart").isEqualTo(404);
      assertThat(call(restarted, "GET", "/v0/entity?id=k", reader).statusCode()).as("still revoked").isEqualTo(401);
      String list = call(restarted, "GET", "/v0/admin/tokens", BOOTSTRAP).body();
      assertThat(list).contains("\"keeper\"").doesNotContain("\"reader\"", keeper, reader);
      for (int i = 0; i < 3; i++) assertThat(cluster.node(i).log()).doesNotContain(reader, keeper, BOOTSTRAP);

      // The members agree: one restarted without --auth tokens still requires them (the set says so).
      cluster.stop(1);
      try (NodeProcess plain = NodeProcess.start(cluster.port(1), cluster.dataDir(1), TestCluster.NODE_JVM,
          List.of("--cluster-secret-file", cluster.secretFile().toString()))) {
        plain.awaitReady(TestCluster.READY);
        assertThat(call(urls.get(1), "GET", "/v0/entity?id=k", null).statusCode()).isEqualTo(401);
        assertThat(call(urls.get(1), "GET", "/v0/entity?id=k", keeper).statusCode()).isEqualTo(404);
        assertThat(plain.log()).contains("this cluster requires API tokens");
      }
    }
  }

  /** Adds a token through {@code url}, retrying while the cluster has no leader yet (503); its secret. */
  private static String addToken(String url, String name, String scopes) throws Exception {
    long deadline = System.nanoTime() + LEADER.toNanos();
    while (true) {
      HttpResponse<String> answer = call(url, "POST", "/v0/admin/tokens?name=" + name + "&scope=" + scopes, BOOTSTRAP);
      if (answer.statusCode() == 201) {
        Matcher secret = SECRET.matcher(answer.body());
        assertThat(secret.find()).isTrue();
        return secret.group(1);
      }
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
      if (System.nanoTime() > deadline) throw new AssertionError("no token added within " + LEADER + ": " + answer.body());
      Thread.onSpinWait();
    }
  }

  /** Waits until {@code GET target} with {@code token} answers a status {@code wanted} takes; how long it took. */
  private static long awaitStatus(String url, String target, String token, IntPredicate wanted, Duration within) throws Exception {
    long start = System.nanoTime();
    int last;
    do {
      last = call(url, "GET", target, token).statusCode();
      if (wanted.test(last)) return (System.nanoTime() - start) / 1_000_000;
    } while (System.nanoTime() - start < within.toNanos());
    throw new AssertionError(url + " still answered " + last + " to GET " + target + " after " + within);
  }

  private static HttpResponse<String> call(String url, String method, String target, @Nullable String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + target)).timeout(Duration.ofSeconds(30))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) request.header("Authorization", "Bearer " + token);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
