package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /v0/admin/repair} on a node without peers, and the repair counters of {@code /v0/status}. */
class RepairApiTest {
  @Test
  void aNodeWithoutPeersHasNothingToRepair(@TempDir Path tmp) {
    try (TestServer node = TestServer.start(tmp)) {
      HttpResponse<byte[]> repaired = node.method("POST", node.uri("/v0/admin/repair"));
      assertThat(repaired.statusCode()).isEqualTo(200);
      assertThat(repaired.headers().firstValue("content-type")).hasValueSatisfying(type -> assertThat(type).contains("json"));
      assertThat(TestServer.text(repaired).strip()).isEqualTo("{\"rangesCompared\": 0, \"leavesCompared\": 0, \"leavesDiffering\": 0, "
          + "\"recordsExchanged\": 0, \"bytesExchanged\": 0, \"durationMillis\": 0, \"failures\": []}");
      assertThat(TestServer.text(node.get(node.uri("/v0/status")))).contains("\"repairRuns\": 0", "\"repairRecordsExchanged\": 0");
    }
  }

  @Test
  void onlyPostRepairs(@TempDir Path tmp) {
    try (TestServer node = TestServer.start(tmp)) {
      HttpResponse<byte[]> wrongMethod = node.get(node.uri("/v0/admin/repair"));
      assertThat(wrongMethod.statusCode()).isEqualTo(405);
      assertThat(wrongMethod.headers().firstValue("allow")).hasValue("POST");
    }
  }
}
