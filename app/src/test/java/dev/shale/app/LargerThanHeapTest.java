package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node with a 128 MiB heap takes 1 GiB of values (eight heaps) and serves every byte of them back. */
class LargerThanHeapTest {
  private static final int VALUES = 1024;
  private static final int VALUE_BYTES = 1 << 20;
  private static final int CLIENTS = 4;

  @Test
  void oneGibibyteThroughA128MebibyteHeap(@TempDir Path tmp) throws Exception {
    long seed = TestSeed.forTest("LargerThanHeapTest");
    try (NodeProcess node = NodeProcess.start(FreePort.find(), tmp.resolve("data"), List.of("-Xmx128m"), List.of())
        .awaitReady(Duration.ofSeconds(60))) {
      EntityClient client = new EntityClient(node.baseUrl());
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      try {
        runAll(pool, i -> assertThat(client.put("big" + i, value(seed, i)).status()).as("PUT big%d", i).isEqualTo(201));
        runAll(pool, i -> {
          EntityClient.Reply reply = client.get("big" + i);
          assertThat(reply.status()).as("GET big%d", i).isEqualTo(200);
          assertThat(reply.body()).as("value of big%d", i).isEqualTo(value(seed, i));
        });
      } finally {
        pool.shutdownNow();
      }
      assertThat(node.terminate(Duration.ofSeconds(10))).isZero();
    }
  }

  private interface Step {
    void run(int index) throws IOException;
  }

  /** Runs {@code step} for every index, {@link #CLIENTS} at a time, failing on the first error. */
  private static void runAll(ExecutorService pool, Step step) throws Exception {
    List<Future<?>> futures = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      int first = c;
      futures.add(pool.submit(() -> {
        for (int i = first; i < VALUES; i += CLIENTS) {
          try {
            step.run(i);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
  }

  private static byte[] value(long seed, int index) {
    byte[] value = new byte[VALUE_BYTES];
    new SplittableRandom(seed * 31 + index).nextBytes(value);
    return value;
  }
}
