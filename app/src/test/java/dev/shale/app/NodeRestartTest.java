package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.TestSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node stopped with SIGTERM exits 0 and, restarted, serves every key as it was. */
class NodeRestartTest {
  private static final Duration READY = Duration.ofSeconds(60);
  // Small memtables, so the run crosses several flushes before the restart.
  private static final List<String> SMALL_MEMTABLE = List.of("--memtable-size", "262144");

  @Test
  void sigtermKeepsEveryWriteAndRestartServesIt(@TempDir Path tmp) throws Exception {
    Random random = new Random(TestSeed.forTest("NodeRestartTest"));
    Path data = tmp.resolve("data");
    Map<String, byte[]> expected = new HashMap<>(); // null: deleted

    try (NodeProcess node = NodeProcess.start(FreePort.find(), data, List.of("-Xmx256m"), SMALL_MEMTABLE)
        .awaitReady(READY)) {
      EntityClient client = new EntityClient(node.baseUrl());
      for (int i = 0; i < 4000; i++) {
        String key = "k" + random.nextInt(1500);
        if (random.nextInt(4) == 0) {
          assertThat(client.delete(key).status()).as("DELETE %s", key).isEqualTo(202);
          expected.put(key, null);
        } else {
          byte[] value = new byte[random.nextInt(2000)];
          random.nextBytes(value);
          assertThat(client.put(key, value).status()).as("PUT %s", key).isEqualTo(201);
          expected.put(key, value);
        }
      }
      assertThat(node.terminate(Duration.ofSeconds(10))).as("exit status after SIGTERM").isZero();
    }

    try (NodeProcess node = NodeProcess.start(FreePort.find(), data, List.of("-Xmx256m"), SMALL_MEMTABLE)
        .awaitReady(READY)) {
      EntityClient client = new EntityClient(node.baseUrl());
      expected.forEach((key, value) -> {
        EntityClient.Reply reply = client.getOrFail(key);
        if (value == null) {
          assertThat(reply.status()).as("GET of deleted %s", key).isEqualTo(404);
        } else {
          assertThat(reply.status()).as("GET %s", key).isEqualTo(200);
          assertThat(reply.body()).as("value of %s", key).isEqualTo(value);
        }
      });
      assertThat(node.terminate(Duration.ofSeconds(10))).isZero();
    }
  }
}
