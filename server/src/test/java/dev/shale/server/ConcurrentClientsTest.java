package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.TestSeed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many clients writing and reading at once, over many connections: every acknowledged write
 * is read back. Values are random from a seed printed on every run; replay one with
 * {@code -Dshale.seed=<seed>}.
 */
class ConcurrentClientsTest {
  static final int THREADS = 8;
  static final int KEYS_PER_THREAD = 100;

  @TempDir Path dir;
  TestServer node;
  long seed;

  @BeforeEach
  void start() {
    seed = TestSeed.forTest("ConcurrentClientsTest");
    node = TestServer.start(dir);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void concurrentWritersAreAllReadable() throws Exception {
    byte[][][] values = new byte[THREADS][KEYS_PER_THREAD][];
    Random random = new Random(seed);
    for (byte[][] thread : values) {
      for (int k = 0; k < thread.length; k++) {
        thread[k] = new byte[random.nextInt(2048)];
        random.nextBytes(thread[k]);
      }
    }
    ExecutorService clients = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        // A keep-alive connection per writer, not the JDK client's shared pool: that pool has a
        // race of its own (JDK-8338569, JDK-8357639) in which it closes a connection it has just
        // taken for the next request when the answer comes back fast, which a loaded machine
        // showed as "header parser received no bytes".
        writers.add(clients.submit(() -> {
          try (RawConnection connection = node.connect()) {
            for (int k = 0; k < KEYS_PER_THREAD; k++) {
              byte[] value = values[thread][k];
              connection.send("PUT /v0/entity?id=" + key(thread, k) + " HTTP/1.1\r\nHost: test\r\nContent-Length: "
                  + value.length + "\r\n\r\n");
              connection.send(value);
              assertThat(connection.read().status()).as("put %s (seed %d)", key(thread, k), seed).isEqualTo(201);
            }
          }
          return null;
        }));
      }
      for (Future<?> writer : writers) writer.get();
    } finally {
      clients.shutdownNow();
    }
    for (int t = 0; t < THREADS; t++) {
      for (int k = 0; k < KEYS_PER_THREAD; k++) {
        assertThat(node.get(node.entity(key(t, k))).body()).as("get %s (seed %d)", key(t, k), seed).isEqualTo(values[t][k]);
      }
    }
  }

  private static String key(int thread, int k) {
    return "t" + thread + "/k" + k;
  }
}
