package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node started from the command line serves /metrics, with its requests, its engine and its JVM in it. */
class MetricsNodeTest {
  @TempDir Path dir;

  @Test
  void aNodeProcessCountsItsRequestsAndShowsTheJvm() throws Exception {
    try (NodeProcess node = NodeProcess.start(FreePort.find(), dir.resolve("data"), List.of("-Xmx256m"), List.of())
        .awaitReady(Duration.ofSeconds(60))) {
      EntityClient client = new EntityClient(node.baseUrl());
      for (int i = 0; i < 3; i++) assertThat(client.put("k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
      assertThat(client.get("k0").status()).isEqualTo(200);

      HttpResponse<String> metrics = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(node.baseUrl() + "/metrics")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body())
          .contains("shale_http_request_duration_seconds_count{method=\"PUT\",route=\"entity\",status=\"201\"} 3\n")
          // The one read of k0; the readiness probes of /v0/status apart from it.
          .contains("shale_http_request_duration_seconds_count{method=\"GET\",route=\"entity\",status=\"200\"} 1\n")
          .contains("shale_http_request_duration_seconds_count{method=\"GET\",route=\"status\",status=\"200\"} ")
          .contains("shale_engine_memtable_bytes ", "shale_hints_pending ", "jvm_memory_used_bytes{area=\"heap\"} ",
              "process_resident_memory_bytes ");
    }
  }
}
