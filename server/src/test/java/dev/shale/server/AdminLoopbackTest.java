package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.testkit.FreePort;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may make admin calls to a node without a cluster: without a secret, loopback clients only
 * (others get 403); with {@code --admin-secret-file}'s secret, signed calls from anywhere and
 * nothing unsigned. A real server listening on every address, called from loopback and from a
 * non-loopback address of this machine (the test is skipped on a machine that has none).
 */
class AdminLoopbackTest {
  private static final byte[] SECRET = "admin-loopback-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final String LIST = "/v0/admin/snapshots";

  @TempDir Path dir;

  @Test
  void withoutASecretOnlyLoopbackClientsAreServed() throws Exception {
    InetAddress outside = nonLoopbackAddress();
    try (Served node = serve(null)) {
      assertThat(call(null, "127.0.0.1", node.port, null).statusCode()).isEqualTo(200);
      HttpResponse<String> refused = call(outside, outside.getHostAddress(), node.port, null);
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(refused.body()).contains("loopback clients only", outside.getHostAddress(), "--admin-secret-file")
          .doesNotContain("\n ");
      assertThat(call(outside, outside.getHostAddress(), node.port, null, "/v0/status").statusCode())
          .as("other calls are served to anyone").isEqualTo(200);
    }
  }

  @Test
  void withAnAdminSecretSignedCallsAreServedFromAnywhereAndUnsignedOnesNowhere() throws Exception {
    InetAddress outside = nonLoopbackAddress();
    AdminSignatures signer = AdminSignatures.withSecret(SECRET, Env.real()::wallMillis);
    try (Served node = serve(AdminSignatures.withSecret(SECRET, Env.real()::wallMillis))) {
      assertThat(call(outside, outside.getHostAddress(), node.port, signer).statusCode()).isEqualTo(200);
      assertThat(call(null, "127.0.0.1", node.port, signer).statusCode()).isEqualTo(200);
      assertThat(call(null, "127.0.0.1", node.port, null).statusCode()).isEqualTo(403);
      assertThat(call(outside, outside.getHostAddress(), node.port, null).statusCode()).isEqualTo(403);
    }
  }

  private record Served(Engine engine, ShaleServer server, int port) implements AutoCloseable {
    @Override
    public void close() {
      server.close();
      engine.close();
    }
  }

  private Served serve(@Nullable AdminSignatures signatures) {
    int port = FreePort.find();
    Engine engine = Engine.open(dir.resolve("data"), EngineOptions.defaults());
    ShaleServer server = ShaleServer.start(engine, Env.real(), TestServer.options().withHost("0.0.0.0").withPort(port), null,
        MissedWrites.NONE, new NodeAdmin(dir.resolve("data").resolve("snapshots"), signatures));
    return new Served(engine, server, port);
  }

  private static HttpResponse<String> call(@Nullable InetAddress from, String host, int port, @Nullable AdminSignatures signer)
      throws IOException, InterruptedException {
    return call(from, host, port, signer, LIST);
  }

  private static HttpResponse<String> call(
      @Nullable InetAddress from, String host, int port, @Nullable AdminSignatures signer, String target)
      throws IOException, InterruptedException {
    HttpClient.Builder client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
    if (from != null) client.localAddress(from);
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + target)).GET();
    if (signer != null) {
      AdminSignatures.Signed signed = signer.sign("GET", target, new byte[0]);
      request.header(AdminSignatures.TIME_HEADER, signed.time())
          .header(AdminSignatures.NONCE_HEADER, signed.nonce())
          .header(AdminSignatures.SIGNATURE_HEADER, signed.signature());
    }
    try (HttpClient http = client.build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private static InetAddress nonLoopbackAddress() throws SocketException {
    Optional<InetAddress> found = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
        .filter(nic -> {
          try {
            return nic.isUp() && !nic.isLoopback();
          } catch (SocketException e) {
            return false;
          }
        })
        .flatMap(nic -> Collections.list(nic.getInetAddresses()).stream())
        .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
        .findFirst();
    assumeTrue(found.isPresent(), "this machine has no non-loopback IPv4 address to call from");
    return found.get();
  }
}
