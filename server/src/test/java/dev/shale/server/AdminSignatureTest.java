package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.testkit.FreePort;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node with a cluster secret runs an admin call ({@code /v0/admin/*}) only when it is signed
 * with that secret (docs/format.md, "Admin request signatures"); every other call gets 403 and
 * reaches nothing.
 */
class AdminSignatureTest {
  private static final byte[] SECRET = "admin-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final String COMPACT = "/v0/admin/compact";

  private final AtomicInteger compactions = new AtomicInteger();
  private final AdminSignatures cli = AdminSignatures.withSecret(SECRET, Env.real()::wallMillis);
  private TestServer node;

  @BeforeEach
  void start(@TempDir Path dir) throws Exception {
    int port = FreePort.find();
    Cluster cluster = new Cluster(new Placement(Topology.single(new NodeAddress("127.0.0.1", port))),
        InternalAuth.withSecret(SECRET, Env.real()::wallMillis), 2_000, 16);
    Engine engine = Engine.open(dir, EngineOptions.defaults());
    Engine counting = new ForwardingEngine(engine) {
      @Override
      public void compact() {
        compactions.incrementAndGet();
        super.compact();
      }
    };
    node = TestServer.wrap(engine, ShaleServer.start(counting, Env.real(), TestServer.options().withPort(port), cluster));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void aSignedCallRuns() {
    HttpResponse<byte[]> response = send(COMPACT, cli.sign("POST", COMPACT, new byte[0]));

    assertThat(response.statusCode()).as(TestServer.text(response)).isEqualTo(200);
    assertThat(TestServer.text(response)).startsWith("compacted in ");
    assertThat(compactions).hasValue(1);
  }

  @Test
  void anUnsignedCallIsRefused() {
    HttpResponse<byte[]> response = node.method("POST", node.uri(COMPACT));

    assertRefused(response, "must be signed with the cluster secret");
  }

  @Test
  void aCallSignedWithAnotherSecretIsRefused() {
    AdminSignatures forger = AdminSignatures.withSecret("not-the-cluster-secret-0123".getBytes(StandardCharsets.UTF_8), Env.real()::wallMillis);

    assertRefused(send(COMPACT, forger.sign("POST", COMPACT, new byte[0])), "signature does not match");
  }

  @Test
  void aStaleCallIsRefused() {
    long stale = System.currentTimeMillis() - AdminSignatures.WINDOW_MILLIS - 5_000;

    assertRefused(send(COMPACT, cli.sign("POST", COMPACT, new byte[0], stale, "stale-nonce-0123456789")),
        "ms from this node's time");
  }

  @Test
  void aReplayedCallIsRefused() {
    AdminSignatures.Signed signed = cli.sign("POST", COMPACT, new byte[0]);
    assertThat(send(COMPACT, signed).statusCode()).isEqualTo(200);

    assertThat(send(COMPACT, signed).statusCode()).isEqualTo(403);
    assertThat(compactions).hasValue(1);
  }

  @Test
  void aCallSignedForAnotherPathIsRefused() {
    assertRefused(send(COMPACT, cli.sign("POST", "/v0/admin/repair", new byte[0])), "signature does not match");
  }

  @Test
  void everyAdminPathIsChecked() {
    HttpResponse<byte[]> unknown = node.method("POST", node.uri("/v0/admin/something-later"));
    HttpResponse<byte[]> root = node.get(node.uri("/v0/admin"));

    assertRefused(unknown, "must be signed");
    assertRefused(root, "must be signed");
    // Signed, an unknown admin path is routed like any unknown path.
    assertThat(send("/v0/admin/something-later", cli.sign("POST", "/v0/admin/something-later", new byte[0])).statusCode())
        .isEqualTo(400);
  }

  @Test
  void otherCallsNeedNoSignature() {
    assertThat(node.put(node.entity("k"), "v".getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(201);
    assertThat(node.get(node.uri("/v0/status")).statusCode()).isEqualTo(200);
  }

  private void assertRefused(HttpResponse<byte[]> response, String reason) {
    assertThat(response.statusCode()).isEqualTo(403);
    assertThat(TestServer.text(response)).contains(reason).doesNotContain("\n ");
    assertThat(compactions).hasValue(0);
  }

  private HttpResponse<byte[]> send(String target, AdminSignatures.Signed signed) {
    return node.send(HttpRequest.newBuilder(node.uri(target)).timeout(TestServer.TIMEOUT)
        .header(AdminSignatures.TIME_HEADER, signed.time())
        .header(AdminSignatures.NONCE_HEADER, signed.nonce())
        .header(AdminSignatures.SIGNATURE_HEADER, signed.signature())
        .POST(HttpRequest.BodyPublishers.noBody()).build());
  }
}
