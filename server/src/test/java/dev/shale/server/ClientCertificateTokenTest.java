package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.auth.LocalTokens;
import dev.shale.cluster.auth.TokenAuth;
import dev.shale.cluster.auth.TokenFile;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.server.tls.CertificateAuthority;
import dev.shale.server.tls.IssuedCertificate;
import dev.shale.server.tls.NodeTls;
import dev.shale.server.tls.TlsFiles;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual-TLS client certificates as API credentials (docs/design.md, "Client certificates"): a
 * real server with {@code --auth tokens} and a client CA on a free loopback port, real
 * handshakes. A certificate's common name names the token whose grant it gets; a bearer token,
 * when sent, wins.
 */
class ClientCertificateTokenTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final String BOOTSTRAP = "shale_bootstrap-secret-for-cert-tests-0123456789";
  private static final Instant FROM = Instant.now().minus(Duration.ofHours(1));
  private static final Instant TO = Instant.now().plus(Duration.ofDays(30));
  private static final Pattern SECRET = Pattern.compile("\"secret\": \"(shale_[A-Za-z0-9_-]{43})\"");

  @TempDir Path dir;
  private final CertificateAuthority ca = CertificateAuthority.create("test CA", FROM, TO);
  private Engine engine;
  private ShaleServer server;

  @BeforeEach
  void start() throws Exception {
    IssuedCertificate node = ca.issueNode("n1", List.of("127.0.0.1"), FROM, TO);
    node.writeTo(dir.resolve("node.crt"), dir.resolve("node.key"));
    ca.writeTo(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    NodeTls tls = NodeTls.open(new TlsFiles(dir.resolve("node.crt"), dir.resolve("node.key"), dir.resolve("ca.crt")),
        System::currentTimeMillis);
    engine = Engine.open(dir.resolve("data"), EngineOptions.defaults());
    TokenAuth auth = new TokenAuth(LocalTokens.open(new TokenFile(Vfs.real(), dir.resolve("data").resolve(LocalTokens.FILE_NAME))), BOOTSTRAP, true);
    server = ShaleServer.start(engine, Env.real(), TestServer.options(), null, MissedWrites.NONE,
        new NodeAdmin(dir.resolve("data").resolve("snapshots"), AdminSignatures.withSecret(
            "cert-test-admin-secret-0123456789".getBytes(StandardCharsets.UTF_8), Env.real()::wallMillis), auth), tls);
  }

  @AfterEach
  void stop() {
    server.close();
    engine.close();
  }

  @Test
  void aReadOnlyTokensCertificateReadsButCannotWrite() throws Exception {
    addToken("reader", "read");
    HttpClient reader = client(ca.issueClient("reader", FROM, TO));
    assertThat(send(reader, "GET", "/v0/entity?id=k", null, null).statusCode()).isEqualTo(404);
    assertThat(send(reader, "GET", "/v0/entities?start=a", null, null).statusCode()).isEqualTo(200);
    HttpResponse<String> put = send(reader, "PUT", "/v0/entity?id=k", "v", null);
    assertThat(put.statusCode()).isEqualTo(403);
    assertThat(put.body().strip()).isEqualTo("token reader lacks the write scope (it has read)");
    assertThat(send(reader, "GET", "/v0/status", null, null).body()).as("the full status").contains("\"memtableBytes\"");
  }

  @Test
  void aCertificateNamingNoTokenIs401WithOneLineButLearnsTheNodeIsUp() throws Exception {
    HttpClient stranger = client(ca.issueClient("stranger", FROM, TO));
    HttpResponse<String> get = send(stranger, "GET", "/v0/entity?id=k", null, null);
    assertThat(get.statusCode()).isEqualTo(401);
    assertThat(get.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"shale\"");
    assertThat(get.body().strip()).doesNotContain("\n")
        .isEqualTo("the client certificate (CN=stranger) names token stranger, which this node does not know "
            + "(never added, or revoked); send 'Authorization: Bearer <token>'");
    assertThat(send(stranger, "GET", "/v0/status", null, null).body().strip()).isEqualTo("{\"status\": \"up\"}");

    // A node's certificate (serverAuth) is no client's credential, even when its CN spells a token.
    addToken("n2", "read,write");
    HttpResponse<String> node = send(client(ca.issueNode("n2", List.of("127.0.0.1"), FROM, TO)), "GET", "/v0/entity?id=k", null, null);
    assertThat(node.statusCode()).isEqualTo(401);
    assertThat(node.body()).contains("is a node certificate (extended key usage serverAuth), which names no token");
  }

  @Test
  void aRevokedTokensCertificateIsRefusedAtItsNextRequest() throws Exception {
    addToken("temp", "read");
    HttpClient temp = client(ca.issueClient("temp", FROM, TO));
    assertThat(send(temp, "GET", "/v0/entity?id=k", null, null).statusCode()).isEqualTo(404);
    assertThat(send(admin(), "DELETE", "/v0/admin/tokens?name=temp", null, BOOTSTRAP).statusCode()).isEqualTo(200);
    // The same client, so the same connection: the set in force is read at every request.
    HttpResponse<String> after = send(temp, "GET", "/v0/entity?id=k", null, null);
    assertThat(after.statusCode()).isEqualTo(401);
    assertThat(after.body()).contains("names token temp, which this node does not know");
  }

  @Test
  void aBearerTokenWinsOverTheCertificate() throws Exception {
    addToken("reader", "read");
    String writer = addToken("writer", "write");
    HttpClient reader = client(ca.issueClient("reader", FROM, TO));
    assertThat(send(reader, "PUT", "/v0/entity?id=k", "v", writer).statusCode()).as("the writer's token").isEqualTo(201);
    HttpResponse<String> wrong = send(reader, "GET", "/v0/entity?id=k", null, "shale_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    assertThat(wrong.statusCode()).as("an unknown token is not made good by the certificate").isEqualTo(401);
    assertThat(wrong.body()).contains("not known to this node");
    assertThat(send(reader, "GET", "/v0/entity?id=k", null, writer).statusCode()).as("the writer may not read").isEqualTo(403);
  }

  @Test
  void aCertificateOfAnotherCaIsRefusedAtTheHandshake() throws Exception {
    addToken("reader", "read");
    CertificateAuthority other = CertificateAuthority.create("test CA", FROM, TO);
    HttpClient impostor = client(other.issueClient("reader", FROM, TO));
    assertThatThrownBy(() -> send(impostor, "GET", "/v0/entity?id=k", null, null)).isInstanceOf(IOException.class);
    assertThat(send(client(ca.issueClient("reader", FROM, TO)), "GET", "/v0/entity?id=k", null, null).statusCode())
        .as("the node serves the next client").isEqualTo(404);
  }

  /** Adds a token through the bootstrap admin token (over a connection with a certificate, as the port requires); its secret. */
  private String addToken(String name, String scopes) throws Exception {
    HttpResponse<String> answer = send(admin(), "POST", "/v0/admin/tokens?name=" + name + "&scope=" + scopes, null, BOOTSTRAP);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
    Matcher secret = SECRET.matcher(answer.body());
    assertThat(secret.find()).isTrue();
    return secret.group(1);
  }

  private HttpClient admin() throws Exception {
    return client(ca.issueClient("operator", FROM, TO));
  }

  private HttpClient client(IssuedCertificate identity) throws Exception {
    SSLContext context = TlsPortTest.trusting(ca.certificate(), identity);
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).sslContext(context).build();
  }

  private HttpResponse<String> send(HttpClient client, String method, String target, @Nullable String body, @Nullable String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + target)).timeout(TIMEOUT)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) request.header("Authorization", "Bearer " + token);
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
