package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers load a real node; it is killed with SIGKILL at a random moment (flushes under way, as
 * the memtable is small); after a restart every acknowledged write is there, byte for byte, and
 * every acknowledged delete still hides its key. Runs in the default durability mode, where an
 * acknowledgement means the record reached the OS with write(), which kill -9 does not undo.
 */
class NodeCrashTest {
  private static final int WRITERS = 4;
  private static final List<String> SMALL_MEMTABLE = List.of("--memtable-size", "262144");

  private final Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
  private final Set<String> deleted = ConcurrentHashMap.newKeySet();

  @Test
  void killDuringLoadLosesNoAcknowledgedWrite(@TempDir Path tmp) throws Exception {
    long seed = TestSeed.forTest("NodeCrashTest");
    int killAfter = 2000 + new Random(seed).nextInt(4000);
    Path data = tmp.resolve("data");

    try (NodeProcess node = NodeProcess.start(FreePort.find(), data, List.of("-Xmx256m"), SMALL_MEMTABLE)
        .awaitReady(Duration.ofSeconds(60))) {
      EntityClient client = new EntityClient(node.baseUrl());
      ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        writers.submit(() -> writeUntilTheNodeDies(client, writer, new SplittableRandom(seed + writer)));
      }
      Await.until(killAfter + " acknowledged operations", Duration.ofMinutes(2),
          () -> acknowledged.size() + deleted.size() >= killAfter);
      node.kill();
      writers.shutdown();
      assertThat(writers.awaitTermination(60, TimeUnit.SECONDS)).as("writers stop once the node is gone").isTrue();
    }

    try (NodeProcess node = NodeProcess.start(FreePort.find(), data, List.of("-Xmx256m"), SMALL_MEMTABLE)
        .awaitReady(Duration.ofSeconds(60))) {
      EntityClient client = new EntityClient(node.baseUrl());
      acknowledged.forEach((key, value) -> {
        EntityClient.Reply reply = client.getOrFail(key);
        assertThat(reply.status()).as("GET of acknowledged %s", key).isEqualTo(200);
        assertThat(reply.body()).as("value of %s", key).isEqualTo(value);
      });
      for (String key : deleted) {
        assertThat(client.getOrFail(key).status()).as("GET of deleted %s", key).isEqualTo(404);
      }
      assertThat(node.terminate(Duration.ofSeconds(10))).isZero();
    }
  }

  /**
   * PUTs fresh keys, and now and then DELETEs one of its own acknowledged keys. A key whose
   * operation was in flight when the node died is in neither map: either outcome is allowed.
   */
  private void writeUntilTheNodeDies(EntityClient client, int writer, SplittableRandom random) {
    try {
      for (int i = 0; ; i++) {
        String key = "w" + writer + "-" + i;
        byte[] value = new byte[random.nextInt(4096)];
        random.nextBytes(value);
        if (client.put(key, value).status() == 201) {
          acknowledged.put(key, value);
        }
        if (i % 10 == 9) {
          String victim = "w" + writer + "-" + (i - 5);
          if (acknowledged.remove(victim) != null && client.delete(victim).status() == 202) {
            deleted.add(victim);
          }
        }
      }
    } catch (IOException nodeGone) {
      // The node was killed: this writer's work is done.
    }
  }
}
