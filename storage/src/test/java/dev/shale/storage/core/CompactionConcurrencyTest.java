package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.testkit.TestSeed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers, writers and compaction at once: no read ever sees an older record of a key than one
 * it saw before, and under sustained writes the tables a point read may touch stay bounded.
 */
class CompactionConcurrencyTest {
  private static final int KEYS = 500;

  @TempDir Path dir;

  @Test
  void readsNeverGoBackInTimeWhileCompactionsRun() throws Exception {
    long seed = TestSeed.forTest("readsNeverGoBackInTimeWhileCompactionsRun");
    EngineOptions options = EngineTesting.smallOptions()
        .withL0Triggers(2, 6, 10)
        .withLevelSizes(128 << 10, 32 << 10);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger reads = new AtomicInteger();
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        Random random = new Random(seed + w);
        writers.add(Thread.ofPlatform().start(() -> run(failures, start, () -> {
          for (int i = 0; i < 15_000; i++) {
            byte[] key = key(random.nextInt(KEYS));
            if (random.nextInt(10) == 0) engine.delete(key);
            else engine.put(key, new byte[random.nextInt(400)]);
            if (i % 5_000 == 4_999 && random.nextBoolean()) engine.compact();
          }
        })));
      }
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        Random random = new Random(seed - r - 1);
        readers.add(Thread.ofPlatform().start(() -> run(failures, start, () -> {
          Map<Integer, Long> seen = new HashMap<>();
          while (writing.get()) {
            int k = random.nextInt(KEYS);
            Entry e = engine.get(key(k));
            long version = e == null ? -1 : e.version();
            Long before = seen.put(k, version);
            if (before != null && version < before) {
              throw new AssertionError("seed " + seed + ": " + Keys.toDisplay(key(k))
                  + " read version " + version + " after " + before);
            }
            reads.incrementAndGet();
          }
        })));
      }
      start.countDown();
      for (Thread w : writers) w.join();
      writing.set(false);
      for (Thread r : readers) r.join();

      assertThat(failures).isEmpty();
      EngineStats stats = engine.stats();
      System.out.println("seed " + seed + ": " + reads.get() + " reads, " + stats);
      assertThat(stats.compactions()).isPositive();
      assertThat(stats.compactionBytesWritten()).isPositive();
    }
  }

  @Test
  void readAmplificationStaysBoundedUnderSustainedWrites() throws Exception {
    EngineOptions options = EngineTesting.smallOptions()
        .withMaxImmutableMemtables(2)
        .withL0Triggers(2, 4, 6)
        .withLevelSizes(256 << 10, 64 << 10);
    int bound = options.l0StopTrigger() + Levels.COUNT - 1;
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        int writer = w;
        writers.add(Thread.ofPlatform().start(() -> run(failures, start, () -> {
          for (int i = 0; i < 8_000; i++) engine.put(key(writer * 100_000 + i), new byte[200]);
        })));
      }
      int maxSeen = 0;
      int maxLevel0 = 0;
      start.countDown();
      while (writers.stream().anyMatch(Thread::isAlive)) {
        maxSeen = Math.max(maxSeen, engine.readAmplification());
        ReadView view = engine.retainViewForTest();
        try {
          maxLevel0 = Math.max(maxLevel0, view.levels().level(0).size() + view.frozen().size());
        } finally {
          view.release();
        }
        Thread.onSpinWait();
      }
      assertThat(failures).isEmpty();
      EngineStats stats = engine.stats();
      System.out.println("read amplification at most " + maxSeen + " (bound " + bound
          + "), L0 + frozen at most " + maxLevel0 + ": " + stats);
      assertThat(maxLevel0).isLessThanOrEqualTo(options.l0StopTrigger());
      assertThat(maxSeen).isLessThanOrEqualTo(bound);
      assertThat(stats.compactions()).isPositive();
      for (int w = 0; w < 3; w++) {
        for (int i = 0; i < 8_000; i += 37) assertThat(engine.get(key(w * 100_000 + i))).isNotNull();
      }
    }
  }

  private interface Body {
    void run() throws Exception;
  }

  private static void run(ConcurrentLinkedQueue<Throwable> failures, CountDownLatch start, Body body) {
    try {
      start.await();
      body.run();
    } catch (Throwable e) {
      failures.add(e);
    }
  }

  private static byte[] key(int i) {
    return bytes("key-%07d".formatted(i));
  }
}
