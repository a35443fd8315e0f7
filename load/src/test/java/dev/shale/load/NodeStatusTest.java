package dev.shale.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The load tools' calls to a node's operator endpoints carry the run's API token: a node started
 * with {@code --auth tokens} answers {@code /v0/status} without one with only whether it is up, and
 * refuses {@code /v0/admin/compact}, so `shale load --profile` could not find the node's pid and
 * `shale load report` could not size or compact its store. A real HTTP server on a loopback port
 * plays the node's part of the exchange.
 */
class NodeStatusTest {
  private static final String TOKEN = "shale_test_token";

  private HttpServer node;

  @BeforeEach
  void start() throws IOException {
    node = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    node.createContext("/v0/status", exchange -> answer(exchange, 200, authorized(exchange)
        ? "{\"status\": \"serving\", \"pid\": 4242, \"maxHeapBytes\": 268435456, \"memory\": {\"budgetBytes\": 0}}"
        : "{\"status\": \"serving\"}"));
    node.createContext("/v0/admin/compact", exchange -> answer(exchange, authorized(exchange) ? 200 : 401,
        authorized(exchange) ? "compacted 3 tables" : "this node requires an API token"));
    node.start();
  }

  @AfterEach
  void stop() {
    node.stop(0);
  }

  @Test
  void theStatusAndTheCompactionAreAskedWithTheRunsToken() throws LoadException {
    LoadSpec withToken = spec().withToken(TOKEN);
    assertThat(NodeStatus.pid(withToken)).isEqualTo(4242);
    assertThat(NodeStatus.maxHeapBytes(withToken)).isEqualTo(256L << 20);
    assertThat(NodeStatus.compact(withToken, Duration.ofSeconds(10))).isEqualTo("compacted 3 tables");
  }

  private LoadSpec spec() {
    return LoadModelTest.spec(node.getAddress().getPort(), 100, 1, Duration.ofSeconds(1), Duration.ZERO);
  }

  private static boolean authorized(HttpExchange exchange) {
    return ("Bearer " + TOKEN).equals(exchange.getRequestHeaders().getFirst("Authorization"));
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
