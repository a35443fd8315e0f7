package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.HintLimits;
import dev.shale.cluster.HintedHandoff;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.server.ServerOptions;
import dev.shale.storage.EngineOptions;
import dev.shale.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wiring: a node serves the API on its engine, and says why when it cannot start. */
class NodeTest {
  @TempDir Path dir;
  final HttpClient client = HttpClient.newHttpClient();

  @Test
  void nodeServesTheApi() throws Exception {
    try (Node node = Node.start(dir.resolve("data"), EngineOptions.defaults(), ServerOptions.defaults().withPort(0))) {
      URI entity = URI.create("http://127.0.0.1:" + node.port() + "/v0/entity?id=k");
      assertThat(send(HttpRequest.newBuilder(entity).PUT(HttpRequest.BodyPublishers.ofString("v"))).statusCode()).isEqualTo(201);
      HttpResponse<String> get = send(HttpRequest.newBuilder(entity).GET());
      assertThat(get.body()).isEqualTo("v");
      assertThat(send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + "/v0/status"))).statusCode())
          .isEqualTo(200);
      assertThat(node.describe()).startsWith("http://127.0.0.1:" + node.port());
    }
  }

  @Test
  void portInUseIsAStartupErrorThatSaysSo() {
    try (Node first = Node.start(dir.resolve("a"), EngineOptions.defaults(), ServerOptions.defaults().withPort(0))) {
      assertThatThrownBy(() -> Node.start(dir.resolve("b"), EngineOptions.defaults(), ServerOptions.defaults().withPort(first.port())))
          .isInstanceOf(StartupException.class)
          .hasMessageContaining("cannot listen on 127.0.0.1:" + first.port());
    }
  }

  @Test
  void aTombstoneGraceNotPastTheHintsLongestAgeIsRefusedAtStart() {
    int port = dev.shale.testkit.FreePort.find();
    Cluster cluster = new Cluster(new Placement(Topology.fromUrls(
        List.of("http://127.0.0.1:" + port, "http://127.0.0.1:" + dev.shale.testkit.FreePort.find()), "127.0.0.1", port)),
        InternalAuth.trustedNetwork(), 1_000, 1);
    EngineOptions engine = EngineOptions.defaults().withTombstoneGraceMillis(3_600_000);
    assertThatThrownBy(() -> Node.start(dir.resolve("grace"), engine, ServerOptions.defaults().withPort(port), cluster,
        new HintLimits(1 << 20, 3_600_000, 10)))
        .isInstanceOf(StartupException.class)
        .hasMessageContaining("the tombstone grace period (3600000 ms) must be longer than the hint age limit (3600000 ms)")
        .hasMessageContaining("--hint-max-age");
    // Past the age, the delivery timeout and the clock skew, it starts, with its hint store under the data directory.
    try (Node node = Node.start(dir.resolve("grace"), engine.withTombstoneGraceMillis(3_600_000
        + dev.shale.cluster.HintedHandoff.DELIVERY_TIMEOUT_MILLIS + HintLimits.MAX_CLOCK_SKEW_MILLIS + 1),
        ServerOptions.defaults().withPort(port), cluster, new HintLimits(1 << 20, 3_600_000, 10))) {
      assertThat(dir.resolve("grace").resolve(Node.HINTS_DIR)).isDirectory();
    }
  }

  @Test
  void aHintForAReplicaThatIsDownIsAPendingGaugeAndItsWarningSaysTheReplicaCannotBeReached() throws Exception {
    int port = dev.shale.testkit.FreePort.find();
    int down = dev.shale.testkit.FreePort.find(); // nothing listens there
    Cluster cluster = new Cluster(new Placement(Topology.fromUrls(
        List.of("http://127.0.0.1:" + port, "http://127.0.0.1:" + down), "127.0.0.1", port)),
        InternalAuth.trustedNetwork(), 1_000, 1);
    List<String> warnings = new CopyOnWriteArrayList<>();
    Logger delivery = Logger.getLogger(HintedHandoff.class.getName());
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        warnings.add(record.getMessage());
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    delivery.addHandler(capture);
    try (Node node = Node.start(dir.resolve("data"), EngineOptions.defaults(), ServerOptions.defaults().withPort(port), cluster,
        HintLimits.DEFAULT)) {
      URI entity = URI.create("http://127.0.0.1:" + port + "/v0/entity?id=k&ack=1&from=2");
      assertThat(send(HttpRequest.newBuilder(entity).PUT(HttpRequest.BodyPublishers.ofString("value"))).statusCode()).isEqualTo(201);
      URI status = URI.create("http://127.0.0.1:" + port + "/v0/status");
      Await.until("the hint is kept", Duration.ofSeconds(30), () -> statusOf(status).contains("\"hintsPending\": 1,"));
      assertThat(send(HttpRequest.newBuilder(status)).body()).containsPattern("\"hintsPendingBytes\": [1-9]");
      Await.until("a delivery failed", Duration.ofSeconds(30), () -> warnings.stream().anyMatch(w -> w.contains("delivery of")));
      String warning = warnings.stream().filter(w -> w.contains("delivery of")).findFirst().orElseThrow();
      // The first attempt finds the port closed; later ones are refused by the mark that it is down.
      assertThat(warning).containsAnyOf("cannot connect to http://127.0.0.1:" + down, "http://127.0.0.1:" + down + " is down")
          .doesNotContain("did not store");
    } finally {
      delivery.removeHandler(capture);
    }
  }

  private String statusOf(URI status) {
    try {
      return send(HttpRequest.newBuilder(status)).body();
    } catch (Exception e) {
      throw new IllegalStateException("GET " + status + " failed", e);
    }
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
