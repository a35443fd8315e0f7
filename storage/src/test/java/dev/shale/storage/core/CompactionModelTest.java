package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Env;
import dev.shale.storage.Keys;
import dev.shale.storage.Versions;
import dev.shale.storage.core.EngineTesting.Model;
import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded random sequence of puts, deletes, writes with the caller's version (often older than
 * the stored one, tombstones among them), gets, full compactions, reopens and wall-clock jumps
 * past the tombstone grace period, with memtables and levels small enough that background
 * compaction moves data through several levels, and a base size that may change at each reopen
 * (so that levels above the base drain). Checked against a TreeMap model applying Entry.newer; a
 * tombstone may read as absent once compaction purged it, a value never.
 * Replay a failure with {@code -Dshale.seed=<seed printed by the run>}.
 */
class CompactionModelTest {
  private static final int OPERATIONS = 25_000;
  private static final int KEY_SPACE = 1_500;
  private static final long GRACE_MILLIS = 5_000;
  private static final long TABLE_BYTES = 32 << 10;
  private static final long[] LEVEL_BASES = {32 << 10, 128 << 10, 2 << 20};

  @TempDir Path dir;

  private final AtomicLong wallMillis = new AtomicLong(1_750_000_000_000L);

  @Test
  void randomOperationsWithCompactionsAndReopensMatchTheModel() {
    long seed = TestSeed.forTest("randomOperationsWithCompactionsAndReopensMatchTheModel");
    Random random = new Random(seed);
    Model model = new Model();
    EngineOptions options = options();
    LsmEngine engine = LsmEngine.open(dir, options, Hooks.none());
    long compactions = 0;
    int deepestLevel = 0;
    try {
      for (int op = 0; op < OPERATIONS; op++) {
        String context = "seed " + seed + ", op " + op;
        step(engine, model, random, context);
        int roll = random.nextInt(1_000);
        if (roll < 2) {
          engine.compact();
          model.assertHeldBy(engine, context + " after compact()");
          assertScanMatches(engine, model, context + " after compact()");
          assertThat(engine.stats().tablesPerLevel().subList(0, Levels.LAST))
              .as("%s: compact() leaves only the last level (and L0 of concurrent flushes)", context)
              .allMatch(n -> n <= 1);
        } else if (roll < 4) {
          compactions += engine.stats().compactions();
          deepestLevel = Math.max(deepestLevel, deepest(engine.stats()));
          engine.close();
          // Each reopen may change the base size: a smaller one moves the base up, a larger one
          // leaves levels above the base to drain (LevelTargets), under the same checks.
          long levelBase = LEVEL_BASES[random.nextInt(LEVEL_BASES.length)];
          engine = LsmEngine.open(dir, options.withLevelSizes(levelBase, TABLE_BYTES), Hooks.none());
          model.assertHeldBy(engine, context + " after reopen with a base of " + levelBase + " bytes");
          assertScanMatches(engine, model, context + " after reopen");
        } else if (roll < 5) {
          wallMillis.addAndGet(GRACE_MILLIS + random.nextInt(1_000));
        }
      }
      compactions += engine.stats().compactions();
      deepestLevel = Math.max(deepestLevel, deepest(engine.stats()));
      model.assertHeldBy(engine, "seed " + seed + " at the end");
    } finally {
      engine.close();
    }
    System.out.println("seed " + seed + ": " + compactions + " compactions, deepest level "
        + deepestLevel);
    assertThat(compactions).as("seed %d: compactions", seed).isGreaterThan(5);
    try (LsmEngine reopened = LsmEngine.open(dir, options, Hooks.none())) {
      model.assertHeldBy(reopened, "seed " + seed + " after the last reopen");
    }
  }

  // Without tombstones, a scan sees exactly the model's values, purged tombstones or not.
  private static void assertScanMatches(LsmEngine engine, Model model, String context) {
    List<Entry> scanned = new ArrayList<>();
    try (EntryIterator it = engine.scan(new byte[0], null, false)) {
      it.forEachRemaining(scanned::add);
    }
    assertThat(scanned).as("%s: full scan", context).isEqualTo(model.scan(new byte[0], null, false));
  }

  private static int deepest(EngineStats stats) {
    int deepest = 0;
    for (int level = 0; level < stats.tablesPerLevel().size(); level++) {
      if (stats.tablesPerLevel().get(level) > 0) deepest = level;
    }
    return deepest;
  }

  private void step(LsmEngine engine, Model model, Random random, String context) {
    wallMillis.addAndGet(random.nextInt(3));
    byte[] key = bytes("key-" + random.nextInt(KEY_SPACE));
    int kind = random.nextInt(100);
    if (kind < 40) {
      byte[] value = value(random);
      model.apply(new Entry(key, engine.put(key, value), value));
    } else if (kind < 52) {
      model.apply(Entry.tombstone(key, engine.delete(key)));
    } else if (kind < 75) {
      long version = callerVersion(random, model.get(key), engine.stats().lastVersion());
      byte[] value = random.nextInt(4) == 0 ? null : value(random);
      engine.write(key, value, version);
      model.apply(new Entry(key, version, value));
    } else {
      Entry expected = model.get(key);
      Entry found = engine.get(key);
      if (found == null && expected != null && expected.isTombstone()) return; // purged
      assertThat(found).as("%s: get %s", context, Keys.toDisplay(key)).isEqualTo(expected);
    }
  }

  // Older than the stored record, a tie, or newer; never older than the grace period allows
  // (a write that late could bring back a value whose tombstone was purged: that is the
  // contract the grace period sets, tested in TombstoneGraceTest).
  private long callerVersion(Random random, Entry stored, long clock) {
    long base = stored == null ? clock : stored.version();
    long version = switch (random.nextInt(3)) {
      case 0 -> base - 1 - random.nextInt(1 << 20);
      case 1 -> base;
      default -> base + 1 + random.nextInt(1 << 10);
    };
    return Math.max(version, Versions.of(wallMillis.get() - GRACE_MILLIS + 1, 0));
  }

  private static byte[] value(Random random) {
    byte[] value = new byte[random.nextInt(10) == 0 ? 2_000 + random.nextInt(6_000) : random.nextInt(300)];
    random.nextBytes(value);
    return value;
  }

  private EngineOptions options() {
    return EngineTesting.smallOptions()
        .withEnv(Env.real().withWallClock(wallMillis::get))
        .withBlockSizeBytes(1024)
        .withL0Triggers(2, 6, 10)
        .withLevelSizes(128 << 10, TABLE_BYTES)
        .withTombstoneGraceMillis(GRACE_MILLIS);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
