package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scans racing writers and the flushes they cause: every scan returns strictly increasing keys
 * inside its range, every key written before the race began and never touched again with its
 * value, and no key's version goes back from one scan of a thread to the next. Replay a failure
 * with {@code -Dshale.seed=<seed printed by the run>}.
 */
class ScanConcurrencyTest {
  private static final int STABLE_KEYS = 100;
  private static final int CHURNED_KEYS = 200;
  private static final int WRITES_PER_WRITER = 4_000;

  @TempDir Path dir;

  @Test
  void scansRacingWritersAndFlushesSeeSortedUniqueKeysAndEveryEarlierWrite() throws Exception {
    long seed = TestSeed.forTest("scansRacingWritersAndFlushesSeeSortedUniqueKeysAndEveryEarlierWrite");
    // write() here carries versions from any time: a tombstone purged past its grace period
    // would let such a late, older write show through (the hazard the grace period bounds), and
    // this test checks versions never go back.
    EngineOptions options = EngineTesting.smallOptions().withTombstoneGraceMillis(Long.MAX_VALUE);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      Map<String, Entry> stable = new HashMap<>();
      for (int i = 0; i < STABLE_KEYS; i++) {
        byte[] key = stableKey(i);
        byte[] value = bytes("stable " + i);
        stable.put(new String(key, StandardCharsets.UTF_8), new Entry(key, engine.put(key, value), value));
      }
      AtomicBoolean writing = new AtomicBoolean(true);
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      List<Thread> scanners = new ArrayList<>();
      for (int s = 0; s < 2; s++) {
        Random random = new Random(seed + 1 + s);
        scanners.add(Thread.ofPlatform().start(() -> {
          Scanner scanner = new Scanner(engine, stable);
          try {
            while (writing.get() && failures.isEmpty()) scanner.scanOnce(random);
            scanner.scanOnce(random); // at least one scan after the writers end
          } catch (Throwable t) {
            failures.add(t);
          }
        }));
      }
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        Random random = new Random(seed + 10 + w);
        writers.add(Thread.ofPlatform().start(() -> {
          try {
            churn(engine, random);
          } catch (Throwable t) {
            failures.add(t);
          }
        }));
      }
      for (Thread w : writers) w.join();
      writing.set(false);
      for (Thread s : scanners) s.join();

      assertThat(failures).as("seed %d", seed).isEmpty();
      assertThat(engine.stats().flushes()).as("seed %d: flushes during the race", seed).isGreaterThanOrEqualTo(5);
    }
  }

  private static void churn(LsmEngine engine, Random random) {
    byte[] value = new byte[600];
    for (int i = 0; i < WRITES_PER_WRITER; i++) {
      byte[] key = bytes("c-" + random.nextInt(CHURNED_KEYS));
      switch (random.nextInt(4)) {
        case 0 -> engine.delete(key);
        case 1 -> engine.write(key, random.nextBoolean() ? value : null,
            (long) (random.nextDouble() * engine.stats().lastVersion()));
        default -> engine.put(key, value);
      }
    }
  }

  private static byte[] stableKey(int i) {
    return bytes(String.format("s-%03d", i));
  }

  /** One scanning thread: its scans, and the newest version of each key it has seen. */
  private static final class Scanner {
    private final LsmEngine engine;
    private final Map<String, Entry> stable;
    private final Map<String, Long> newestSeen = new HashMap<>();

    Scanner(LsmEngine engine, Map<String, Entry> stable) {
      this.engine = engine;
      this.stable = stable;
    }

    void scanOnce(Random random) {
      byte[] start = random.nextInt(4) == 0 ? new byte[0] : bytes(random.nextBoolean() ? "c-" : "s-0" + random.nextInt(10));
      byte[] end = random.nextInt(3) == 0 ? null : bytes(random.nextBoolean() ? "s-05" : "t");
      boolean includeTombstones = random.nextBoolean();
      String range = "[" + Keys.toDisplay(start) + ", " + (end == null ? "end" : Keys.toDisplay(end)) + ")";
      int stableSeen = 0;
      byte[] previous = null;
      try (EntryIterator scan = engine.scan(start, end, includeTombstones)) {
        while (scan.hasNext()) {
          Entry e = scan.next();
          String key = new String(e.key(), StandardCharsets.UTF_8);
          check(Keys.compare(e.key(), start) >= 0 && (end == null || Keys.compare(e.key(), end) < 0),
              "key " + key + " outside " + range);
          check(previous == null || Keys.compare(previous, e.key()) < 0,
              "key " + key + " after " + (previous == null ? "" : new String(previous, StandardCharsets.UTF_8)) + " in " + range);
          check(includeTombstones || !e.isTombstone(), "tombstone of " + key + " returned");
          Long before = newestSeen.put(key, e.version());
          check(before == null || e.version() >= before,
              "key " + key + " went from version " + before + " back to " + e.version());
          if (stable.containsKey(key)) {
            check(e.equals(stable.get(key)), "stable key " + key + " read as " + e);
            stableSeen++;
          }
          previous = e.key();
        }
      }
      long stableInRange = stable.keySet().stream()
          .filter(k -> Keys.compare(bytes(k), start) >= 0 && (end == null || Keys.compare(bytes(k), end) < 0))
          .count();
      check(stableSeen == stableInRange,
          range + " returned " + stableSeen + " of its " + stableInRange + " stable keys");
    }

    private static void check(boolean condition, String failure) {
      if (!condition) throw new AssertionError(failure);
    }
  }
}
