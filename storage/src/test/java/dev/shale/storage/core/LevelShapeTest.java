package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.testkit.TestSeed;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where compaction puts a store's data (LevelTargets): in the last level, with at most a tenth
 * of it, or {@code levelBaseBytes}, above; never spread over the upper levels as static targets
 * spread it. Seeded values; replay with {@code -Dshale.seed=<seed printed by the run>}.
 */
class LevelShapeTest {
  private static final int VALUE_BYTES = 200;

  @TempDir Path dir;

  @Test
  @Timeout(120)
  void aStoreOfAtMostTheBaseSizeLivesInTheLastLevelAndAnOverwriteLeavesOneCopy() {
    Random random = new Random(TestSeed.forTest("aStoreOfAtMostTheBaseSize"));
    int keys = 4_000; // about 0.9 MB of records
    EngineOptions options = EngineTesting.smallOptions().withLevelSizes(4 << 20, 64 << 10);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      for (int round = 0; round < 3; round++) writeAll(engine, keys, round, random);
      EngineTesting.await("level 0 compacted", () -> engine.stats().compactions() > 0
          && engine.stats().tablesPerLevel().get(0) < options.l0CompactionTrigger()
          && engine.stats().immutableMemtables() == 0);

      EngineStats before = engine.stats();
      assertThat(before.tablesPerLevel().subList(1, Levels.LAST)).as("levels 1-5")
          .containsOnly(0);
      long lastLevelBytes = before.bytesPerLevel().get(Levels.LAST);
      engine.compact();
      long liveBytes = engine.stats().tableBytes();
      // Level 0 merged into the last level, dropping each key's older versions as it went: the
      // last level held one record per key, as a full compaction leaves it.
      assertThat(lastLevelBytes).as("last level bytes, against %d live", liveBytes)
          .isBetween(liveBytes * 95 / 100, liveBytes * 105 / 100);
    }
  }

  @Test
  @Timeout(120)
  void aStorePastTheBaseSizeKeepsMostOfItsDataInTheLastLevel() {
    Random random = new Random(TestSeed.forTest("aStorePastTheBaseSize"));
    int keys = 15_000; // about 3.3 MB of records, 13 times the base size
    EngineOptions options = EngineTesting.smallOptions().withLevelSizes(256 << 10, 32 << 10);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      writeAll(engine, keys, 0, random);
      EngineTesting.await("the last level holding 80% of the data below level 0, levels 1-3 empty",
          () -> {
            List<Long> bytes = engine.stats().bytesPerLevel();
            long belowLevel0 = bytes.subList(1, Levels.COUNT).stream().mapToLong(Long::longValue).sum();
            return bytes.subList(1, 4).stream().allMatch(b -> b == 0)
                && bytes.get(Levels.LAST) >= belowLevel0 * 8 / 10;
          });
      for (int i = 0; i < keys; i++) assertThat(engine.get(key(i))).as("key %d", i).isNotNull();
    }
  }

  @Test
  @Timeout(120)
  void levelsAboveTheBaseDrainIntoTheLevelsTheDataNeeds() {
    Random random = new Random(TestSeed.forTest("levelsAboveTheBaseDrain"));
    int keys = 4_000;
    // A tiny base first: 0.9 MB of records spread from level 3 down.
    EngineOptions tiny = EngineTesting.smallOptions().withLevelSizes(8 << 10, 4 << 10);
    try (LsmEngine engine = LsmEngine.open(dir, tiny, Hooks.none())) {
      writeAll(engine, keys, 0, random);
      EngineTesting.await("data above level 5", () -> aboveLevel(engine.stats(), 5) > 0);
    }
    // Reopened with a base the store fits in (as a store written under static targets, with data
    // from level 1 on, is opened by this version): what sits above the last level drains into it.
    EngineOptions roomy = EngineTesting.smallOptions().withLevelSizes(4 << 20, 64 << 10);
    try (LsmEngine engine = LsmEngine.open(dir, roomy, Hooks.none())) {
      EngineTesting.await("levels 1-5 drained", () -> aboveLevel(engine.stats(), Levels.LAST) == 0);
      assertThat(engine.stats().bytesPerLevel().get(Levels.LAST)).isPositive();
      for (int i = 0; i < keys; i++) assertThat(engine.get(key(i))).as("key %d", i).isNotNull();
    }
  }

  // The bytes of levels 1 to level - 1.
  private static long aboveLevel(EngineStats stats, int level) {
    return stats.bytesPerLevel().subList(1, level).stream().mapToLong(Long::longValue).sum();
  }

  // Puts every key once, in an order spread over the whole key range, with random values (which
  // no codec shrinks, so bytes on disk follow records).
  private static void writeAll(LsmEngine engine, int keys, int round, Random random) {
    byte[] value = new byte[VALUE_BYTES];
    for (int n = 0; n < keys; n++) {
      random.nextBytes(value);
      value[0] = (byte) round;
      engine.put(key((int) ((n * 7919L) % keys)), value);
    }
  }

  private static byte[] key(int i) {
    return EngineTesting.bytes("key-%06d".formatted(i));
  }
}
