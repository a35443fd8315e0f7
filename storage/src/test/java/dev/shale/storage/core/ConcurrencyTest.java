package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import dev.shale.storage.SyncMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many threads at once: group commit, and reads racing flushes. */
class ConcurrencyTest {
  @TempDir Path dir;

  @Test
  void concurrentWritersInSyncModeAlwaysShareFsyncs() throws Exception {
    int threads = 8;
    int writesPerThread = 150;
    EngineOptions options = EngineOptions.defaults().withSyncMode(SyncMode.ALWAYS);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      long forcesBefore = engine.logForceCount();
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> writers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        writers.add(Thread.ofPlatform().start(() -> {
          try {
            start.await();
            for (int i = 0; i < writesPerThread; i++) engine.put(key(thread, i), bytes("v" + i));
          } catch (Throwable e) {
            failures.add(e);
          }
        }));
      }
      start.countDown();
      for (Thread w : writers) w.join();

      assertThat(failures).isEmpty();
      for (int t = 0; t < threads; t++) {
        for (int i = 0; i < writesPerThread; i++) {
          assertThat(engine.get(key(t, i)).value()).isEqualTo(bytes("v" + i));
        }
      }
      long forces = engine.logForceCount() - forcesBefore;
      int writes = threads * writesPerThread;
      System.out.println("group commit: " + forces + " fsyncs for " + writes + " writes");
      assertThat(forces).isPositive().isLessThan((long) threads * writesPerThread);
    }
  }

  @Test
  void readersRacingFlushesNeverSeeAKeyGoBackInVersion() throws Exception {
    int keys = 50;
    int writes = 6_000;
    try (LsmEngine engine = LsmEngine.open(dir, EngineTesting.smallOptions(), Hooks.none())) {
      AtomicBoolean writing = new AtomicBoolean(true);
      ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        int reader = r;
        readers.add(Thread.ofPlatform().start(() -> {
          Map<Integer, Long> seen = new HashMap<>();
          int k = reader;
          while (writing.get() && failures.isEmpty()) {
            k = (k + 7) % keys;
            Entry entry = engine.get(key(0, k));
            long version = entry == null ? -1 : entry.version();
            Long before = seen.put(k, version);
            if (before != null && version < before) {
              failures.add("key " + k + " went from version " + before + " back to " + version);
            }
          }
        }));
      }
      byte[] value = new byte[500];
      for (int i = 0; i < writes; i++) engine.put(key(0, i % keys), value);
      writing.set(false);
      for (Thread r : readers) r.join();

      assertThat(failures).isEmpty();
      assertThat(engine.stats().flushes()).isGreaterThanOrEqualTo(5);
    }
  }

  @Test
  void closeRacingReadersAndWritersKeepsEveryAcknowledgedWrite() throws Exception {
    LsmEngine engine = LsmEngine.open(dir, EngineTesting.smallOptions(), Hooks.none());
    for (int i = 0; i < 2_000; i++) engine.put(key(9, i), new byte[100]); // a few tables to read
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Integer> acknowledged = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      threads.add(Thread.ofPlatform().start(() -> {
        try {
          for (int i = 0; ; i++) {
            if (thread % 2 == 0) {
              engine.get(key(9, i % 2_000));
            } else {
              engine.put(key(thread, i), new byte[100]);
              acknowledged.add(thread * 1_000_000 + i);
            }
          }
        } catch (StorageException e) {
          if (!e.getMessage().contains("engine is closed")) unexpected.add(e);
        } catch (Throwable e) {
          unexpected.add(e);
        }
      }));
    }
    EngineTesting.await("writes under way", () -> acknowledged.size() > 500);
    engine.close();
    for (Thread t : threads) t.join();

    assertThat(unexpected).isEmpty();
    try (LsmEngine reopened = LsmEngine.open(dir, EngineTesting.smallOptions(), Hooks.none())) {
      for (int id : acknowledged) {
        assertThat(reopened.get(key(id / 1_000_000, id % 1_000_000))).isNotNull();
      }
    }
  }

  private static byte[] key(int thread, int i) {
    return bytes("t" + thread + "-k" + i);
  }
}
