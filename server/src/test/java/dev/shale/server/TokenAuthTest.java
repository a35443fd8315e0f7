package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.auth.LocalTokens;
import dev.shale.cluster.auth.TokenAuth;
import dev.shale.cluster.auth.TokenFile;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.storage.Vfs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real server that requires API tokens, over real HTTP: every route against each scope, key
 * prefixes on every verb and on scans, the 401 and 403 reasons, revocation, and that no secret
 * shows in a log line, the status or the metrics.
 */
class TokenAuthTest {
  private static final String BOOTSTRAP = "shale_bootstrap-secret-for-tests-0123456789abcdef";
  private static final byte[] ADMIN_SECRET = "token-test-admin-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final Pattern SECRET = Pattern.compile("\"secret\": \"(shale_[A-Za-z0-9_-]{43})\"");

  @TempDir Path dir;
  private Engine engine;
  private ShaleServer server;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<String> secrets = new ArrayList<>(List.of(BOOTSTRAP));

  @BeforeEach
  void start() {
    engine = Engine.open(dir.resolve("data"), EngineOptions.defaults());
    TokenAuth auth = new TokenAuth(LocalTokens.open(new TokenFile(Vfs.real(), dir.resolve("data").resolve(LocalTokens.FILE_NAME))), BOOTSTRAP, true);
    server = ShaleServer.start(engine, Env.real(), TestServer.options(), null, MissedWrites.NONE,
        new NodeAdmin(dir.resolve("data").resolve("snapshots"), AdminSignatures.withSecret(ADMIN_SECRET, Env.real()::wallMillis), auth));
  }

  @AfterEach
  void stop() {
    server.close();
    engine.close();
  }

  @Test
  void everyRouteNeedsItsScope() throws Exception {
    String reader = add("reader", "read");
    String writer = add("writer", "write");
    String admin = add("ops", "admin");
    String metrics = add("scraper", "metrics");
    assertThat(call("PUT", "/v0/entity?id=k", writer, "v").statusCode()).isEqualTo(201);

    record Route(String method, String target, String scope, int allowed) {}
    List<Route> routes = List.of(
        new Route("GET", "/v0/entity?id=k", "read", 200),
        new Route("PUT", "/v0/entity?id=k", "write", 201),
        new Route("DELETE", "/v0/entity?id=gone", "write", 202),
        new Route("GET", "/v0/entities?start=a", "read", 200),
        new Route("GET", "/metrics", "metrics", 200),
        new Route("GET", "/v0/admin/tokens", "admin", 200),
        new Route("GET", "/v0/admin/snapshots", "admin", 200));
    record Holder(String scope, String secret) {}
    for (Holder holder : List.of(new Holder("read", reader), new Holder("write", writer), new Holder("admin", admin),
        new Holder("metrics", metrics))) {
      for (Route route : routes) {
        HttpResponse<String> answer = call(route.method(), route.target(), holder.secret(), route.method().equals("PUT") ? "v" : null);
        if (route.scope().equals(holder.scope())) {
          assertThat(answer.statusCode()).as(holder.scope() + " on " + route).isEqualTo(route.allowed());
        } else {
          assertThat(answer.statusCode()).as(holder.scope() + " on " + route).isEqualTo(403);
          assertThat(answer.body().strip()).as("one line").doesNotContain("\n")
              .contains("lacks the " + route.scope() + " scope (it has " + holder.scope() + ")");
        }
      }
    }
  }

  @Test
  void withoutATokenOrWithAnUnknownOneEveryRouteButTheStatusIs401() throws Exception {
    for (String target : List.of("/v0/entity?id=k", "/v0/entities?start=a", "/metrics", "/v0/admin/tokens", "/nothing")) {
      HttpResponse<String> missing = call("GET", target, null, null);
      assertThat(missing.statusCode()).as(target).isEqualTo(401);
      assertThat(missing.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"shale\"");
      assertThat(missing.body().strip()).doesNotContain("\n").contains("requires an API token", "Authorization: Bearer");

      String guess = "shale_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
      secrets.add(guess);
      HttpResponse<String> unknown = call("GET", target, guess, null);
      assertThat(unknown.statusCode()).as(target).isEqualTo(401);
      assertThat(unknown.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"shale\", error=\"invalid_token\"");
      assertThat(unknown.body().strip()).doesNotContain("\n").contains("not known to this node");
    }
    HttpResponse<String> basic = http.send(request("GET", "/v0/entity?id=k", null)
        .header("Authorization", "Basic dXNlcjpwYXNz").build(), HttpResponse.BodyHandlers.ofString());
    assertThat(basic.statusCode()).isEqualTo(401);
    assertThat(basic.body()).contains("must be 'Bearer <token>'");
  }

  @Test
  void theStatusWithoutATokenSaysOnlyThatTheNodeIsUp() throws Exception {
    HttpResponse<String> health = call("GET", "/v0/status", null, null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body().strip()).isEqualTo("{\"status\": \"up\"}");
    HttpResponse<String> full = call("GET", "/v0/status", add("reader", "read"), null);
    assertThat(full.statusCode()).isEqualTo(200);
    assertThat(full.body()).contains("\"memtableBytes\"").isNotEqualTo(health.body());
  }

  @Test
  void prefixesLimitEveryVerbAndScansLeavingThemAreRefused() throws Exception {
    String user = addWith("users", "read,write", "&prefix=user%2F");
    assertThat(call("PUT", "/v0/entity?id=user/1", user, "one").statusCode()).isEqualTo(201);
    assertThat(call("GET", "/v0/entity?id=user/1", user, null).body()).isEqualTo("one");
    assertThat(call("DELETE", "/v0/entity?id=user/1", user, null).statusCode()).isEqualTo(202);
    for (String method : List.of("GET", "PUT", "DELETE")) {
      HttpResponse<String> outside = call(method, "/v0/entity?id=admin/1", user, method.equals("PUT") ? "x" : null);
      assertThat(outside.statusCode()).as(method).isEqualTo(403);
      assertThat(outside.body().strip()).isEqualTo("token users may not use keys outside its key prefixes");
    }
    assertThat(call("GET", "/v0/entities?start=user%2F&end=user0", user, null).statusCode()).isEqualTo(200);
    assertThat(call("GET", "/v0/entities?start=user%2Fa&end=user%2Fb", user, null).statusCode()).isEqualTo(200);
    for (String range : List.of("start=user%2F", "start=a&end=user%2Fz", "start=user%2F&end=user1", "start=a&end=b")) {
      HttpResponse<String> leaves = call("GET", "/v0/entities?" + range, user, null);
      assertThat(leaves.statusCode()).as(range).isEqualTo(403);
      assertThat(leaves.body().strip()).isEqualTo("token users may not scan a range that goes outside its key prefixes");
    }
  }

  @Test
  void aRevokedTokenIsRefusedAtOnceAndTheListShowsNoSecret() throws Exception {
    String reader = add("reader", "read");
    assertThat(call("GET", "/v0/entity?id=k", reader, null).statusCode()).isEqualTo(404);
    HttpResponse<String> list = call("GET", "/v0/admin/tokens", BOOTSTRAP, null);
    assertThat(list.body()).contains("\"name\": \"reader\"", "\"scopes\": [\"read\"]", "\"created\": ")
        .doesNotContain(reader, "shale_");
    assertThat(call("DELETE", "/v0/admin/tokens?name=reader", BOOTSTRAP, null).statusCode()).isEqualTo(200);
    assertThat(call("GET", "/v0/entity?id=k", reader, null).statusCode()).isEqualTo(401);
    assertThat(call("DELETE", "/v0/admin/tokens?name=reader", BOOTSTRAP, null).statusCode()).isEqualTo(409);
    assertThat(call("POST", "/v0/admin/tokens?name=x&scope=root", BOOTSTRAP, null).body()).contains("unknown scope 'root'");
    assertThat(call("POST", "/v0/admin/tokens?name=a%20b&scope=read", BOOTSTRAP, null).statusCode()).isEqualTo(400);
  }

  @Test
  void adminCallsSignedWithTheNodesSecretStillPass() throws Exception {
    AdminSignatures signer = AdminSignatures.withSecret(ADMIN_SECRET, Env.real()::wallMillis);
    AdminSignatures.Signed signed = signer.sign("GET", "/v0/admin/tokens", new byte[0]);
    HttpResponse<String> answer = http.send(request("GET", "/v0/admin/tokens", null)
        .header(AdminSignatures.TIME_HEADER, signed.time()).header(AdminSignatures.NONCE_HEADER, signed.nonce())
        .header(AdminSignatures.SIGNATURE_HEADER, signed.signature()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(200);
    HttpResponse<String> forged = http.send(request("GET", "/v0/admin/tokens", null)
        .header(AdminSignatures.TIME_HEADER, signed.time()).header(AdminSignatures.NONCE_HEADER, "other")
        .header(AdminSignatures.SIGNATURE_HEADER, signed.signature()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(forged.statusCode()).isEqualTo(403);
  }

  @Test
  void noSecretShowsInTheLogsTheStatusOrTheMetrics() throws Exception {
    try (LogCapture logs = LogCapture.of("dev.shale")) {
      // A name no other test uses: refusals are logged once per reason per 10 s, in this JVM.
      String reader = add("logged-reader", "read");
      call("GET", "/v0/entity?id=k", reader, null);
      call("PUT", "/v0/entity?id=k", reader, "v"); // refused: logged
      call("GET", "/v0/entity?id=k", reader + "x", null); // unknown: logged
      secrets.add(reader + "x");
      call("GET", "/v0/admin/tokens", reader, null);
      String status = call("GET", "/v0/status", BOOTSTRAP, null).body();
      String metrics = call("GET", "/metrics", BOOTSTRAP, null).body();
      assertThat(logs.lines()).as("refusals are logged").anyMatch(line -> line.contains("token logged-reader lacks the write scope"));
      for (String secret : secrets) {
        assertThat(String.join("\n", logs.lines())).doesNotContain(secret);
        assertThat(status).doesNotContain(secret);
        assertThat(metrics).doesNotContain(secret);
      }
    }
  }

  /** Adds a token with the bootstrap admin token; returns its secret. */
  private String add(String name, String scopes) throws Exception {
    return addWith(name, scopes, "");
  }

  private String addWith(String name, String scopes, String more) throws Exception {
    HttpResponse<String> answer = call("POST", "/v0/admin/tokens?name=" + name + "&scope=" + scopes + more, BOOTSTRAP, null);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
    Matcher secret = SECRET.matcher(answer.body());
    assertThat(secret.find()).as(answer.body()).isTrue();
    secrets.add(secret.group(1));
    return secret.group(1);
  }

  private HttpResponse<String> call(String method, String target, @Nullable String token, @Nullable String body) throws Exception {
    HttpRequest.Builder request = request(method, target, body);
    if (token != null) request.header("Authorization", "Bearer " + token);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String method, String target, @Nullable String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + target)).method(method,
        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
  }
}
