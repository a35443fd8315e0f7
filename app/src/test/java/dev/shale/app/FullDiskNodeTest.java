package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.SmallDisk;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose disk filled up, killed with SIGKILL and started again on the full disk (issue 31,
 * defect 4: it exited 1, "opening ... failed: No space left on device"). It must start, serve
 * every acknowledged record (GET and scan; the last ones only in the log, which it cannot flush),
 * refuse writes with 507 and a one-line reason, say so in {@code /v0/status}, and take writes
 * again once space is freed, without a restart. A real process on a real tmpfs (root only: the
 * test is skipped elsewhere, as every full-disk test is).
 */
class FullDiskNodeTest {
  private static final Duration START = Duration.ofSeconds(60);
  private static final List<String> NODE_OPTIONS = List.of("--disk-reserve", "4m", "--memtable-size", "1m");
  private static final int VALUE_BYTES = 16 << 10;

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Map<String, byte[]> acknowledged = new TreeMap<>();
  private final Set<String> deleted = new TreeSet<>();

  @Test
  void aNodeKilledOnAFullDiskStartsServesReadsRefusesWritesAndTakesThemOnceSpaceIsFreed(@TempDir Path logs)
      throws IOException {
    long seed = TestSeed.forTest("FullDiskNodeTest");
    try (SmallDisk disk = SmallDisk.mount(32 << 20)) {
      Path data = disk.root().resolve("data");
      // Other files on the disk, deleted to free space: the ballast alone would give back only
      // what was free when writes were refused, which is under the reserve.
      Path otherFiles = Files.write(disk.root().resolve("other-files"), new byte[8 << 20]);
      try (NodeProcess node = start(data, logs)) {
        writeUntilRefused(new EntityClient(node.baseUrl()), new Random(seed));
        disk.fillUp("ballast");
        node.kill();
      }
      Path ballast = disk.root().resolve("ballast");
      assertThat(disk.freeBytes()).as("free bytes on the disk").isZero();

      try (NodeProcess node = start(data, logs)) {
        EntityClient client = new EntityClient(node.baseUrl());
        assertServesEveryAcknowledgedRecord(node, client);
        assertRefused(client.put("refused", new byte[] {1}));
        assertRefused(client.delete(acknowledged.keySet().iterator().next()));
        assertThat(client.get("refused").status()).isEqualTo(404);
        assertThat(get(node, "/v0/status")).contains("\"degraded\"").contains("\"writes\": \"refused\"")
            .contains("\"refusalClearsByItself\": true");

        Files.delete(ballast);
        Files.delete(otherFiles);
        Await.until("writes taken once space is freed", Duration.ofSeconds(30),
            () -> put(client, "after-the-disk-filled", new byte[] {2}) == 201);
        acknowledged.put("after-the-disk-filled", new byte[] {2});
        assertThat(get(node, "/v0/status")).contains("\"serving\"");
        assertThat(node.terminate(Duration.ofSeconds(30))).isZero();
      }
      try (NodeProcess node = start(data, logs)) {
        assertServesEveryAcknowledgedRecord(node, new EntityClient(node.baseUrl()));
        assertThat(node.terminate(Duration.ofSeconds(30))).isZero();
      }
    }
  }

  private static NodeProcess start(Path data, Path logs) {
    int port = FreePort.find();
    List<String> args = new ArrayList<>(List.of(
        "server", "--host", "127.0.0.1", "--port", Integer.toString(port), "--data", data.toString()));
    args.addAll(NODE_OPTIONS);
    // The node's output goes to `logs`, off the full disk.
    return NodeProcess.startCommand(port, logs, List.of("-Xmx256m"), args).awaitReady(START);
  }

  // PUTs fresh keys, now and then DELETEs an acknowledged one, until a PUT gets 507.
  private void writeUntilRefused(EntityClient client, Random random) throws IOException {
    for (int i = 0; i < 10_000; i++) {
      String key = "key-%05d".formatted(i);
      byte[] value = new byte[VALUE_BYTES];
      random.nextBytes(value);
      int status = client.put(key, value).status();
      if (status == 507) return;
      if (status == 201) acknowledged.put(key, value);
      else assertThat(status).as("PUT %s before the disk filled", key).isEqualTo(503);
      if (i % 10 == 9) {
        String victim = "key-%05d".formatted(i - 5);
        if (acknowledged.containsKey(victim) && client.delete(victim).status() == 202) {
          acknowledged.remove(victim);
          deleted.add(victim);
        }
      }
    }
    throw new AssertionError("10000 PUTs of " + VALUE_BYTES + " bytes fit a 32 MiB disk");
  }

  private void assertServesEveryAcknowledgedRecord(NodeProcess node, EntityClient client) throws IOException {
    acknowledged.forEach((key, value) -> {
      EntityClient.Reply reply = client.getOrFail(key);
      assertThat(reply.status()).as("GET of acknowledged %s", key).isEqualTo(200);
      assertThat(reply.body()).as("value of %s", key).isEqualTo(value);
    });
    for (String key : deleted) assertThat(client.getOrFail(key).status()).as("GET of deleted %s", key).isEqualTo(404);
    Map<String, byte[]> scanned = new TreeMap<>();
    try (ScanStream scan = ScanStream.open(node.baseUrl(), "start=a", 30_000)) {
      assertThat(scan.status()).isEqualTo(200);
      for (ScanStream.Entry e = scan.next(); e != null; e = scan.next()) scanned.put(e.key(), e.value());
      assertThat(scan.complete()).as("the scan ended with its terminating chunk").isTrue();
    }
    assertThat(scanned.keySet()).as("the keys a scan of everything returns").isEqualTo(acknowledged.keySet());
    scanned.forEach((key, value) -> assertThat(value).as("scanned value of %s", key).isEqualTo(acknowledged.get(key)));
  }

  private static void assertRefused(EntityClient.Reply reply) {
    assertThat(reply.status()).isEqualTo(507);
    assertThat(reply.text().strip()).as("the reason, one line").doesNotContain("\n")
        .contains("full").contains("nothing was written");
  }

  private static int put(EntityClient client, String key, byte[] value) {
    try {
      return client.put(key, value).status();
    } catch (IOException e) {
      throw new AssertionError("PUT " + key, e);
    }
  }

  private String get(NodeProcess node, String path) throws IOException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(node.baseUrl() + path)).timeout(Duration.ofSeconds(30)).build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
