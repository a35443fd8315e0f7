package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Level-0 tables that meet neither each other nor anything below move down without a byte
 * rewritten (a store filled in key order); overlapping ones are merged as before. Either way
 * every key reads back, before and after a reopen.
 */
class CompactionMoveTest {
  private static final int L0_TRIGGER = 4;

  @TempDir Path dir;

  @Test
  @Timeout(120)
  void disjointLevel0TablesMoveDownWithoutARewrite() {
    EngineOptions options = EngineTesting.smallOptions().withL0Triggers(L0_TRIGGER, 20, 36);
    FlushGate compactions = new FlushGate();
    compactions.hold();
    List<Long> level0;
    int written;
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.withCompactionGate(compactions))) {
      written = fillLevel0(engine, i -> i); // ascending keys: each flush holds a range of its own
      level0 = tableNumbers(engine, 0);
      compactions.release();
      EngineTesting.await("level 0 compacted", () -> engine.stats().tablesPerLevel().get(0) == 0);

      assertThat(engine.stats().compactionBytesWritten()).as("bytes rewritten").isZero();
      // A store this small has the last level as its base (LevelTargets): the tables go there.
      assertThat(tableNumbers(engine, Levels.LAST)).as("the last level holds the level-0 files themselves")
          .containsExactlyInAnyOrderElementsOf(level0);
      assertAllReadBack(engine, written, i -> i);
    }
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      assertThat(tableNumbers(engine, Levels.LAST)).containsExactlyInAnyOrderElementsOf(level0);
      assertAllReadBack(engine, written, i -> i);
    }
  }

  @Test
  @Timeout(120)
  void overlappingLevel0TablesAreMergedNotMoved() {
    EngineOptions options = EngineTesting.smallOptions().withL0Triggers(L0_TRIGGER, 20, 36);
    FlushGate compactions = new FlushGate();
    compactions.hold();
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.withCompactionGate(compactions))) {
      // Keys spread over the whole range by every flush: all level-0 tables overlap.
      int written = fillLevel0(engine, CompactionMoveTest::scattered);
      List<Long> level0 = tableNumbers(engine, 0);
      compactions.release();
      EngineTesting.await("level 0 compacted", () -> engine.stats().tablesPerLevel().get(0) == 0);

      assertThat(tableNumbers(engine, Levels.LAST)).isNotEmpty().doesNotContainAnyElementsOf(level0);
      // The compaction thread counts its bytes only after it has published the new view, which
      // is what the wait above saw: wait for the count too.
      EngineTesting.await("bytes rewritten counted", () -> engine.stats().compactionBytesWritten() > 0);
      assertAllReadBack(engine, written, CompactionMoveTest::scattered);
    }
  }

  // Writes key(order(i)) for i = 0, 1, ... until level 0 holds L0_TRIGGER tables; returns how many.
  private static int fillLevel0(LsmEngine engine, java.util.function.IntUnaryOperator order) {
    byte[] value = new byte[200];
    int i = 0;
    while (engine.stats().tablesPerLevel().get(0) < L0_TRIGGER) {
      assertThat(i).as("writes to fill level 0").isLessThan(100_000);
      engine.put(key(order.applyAsInt(i)), value);
      i++;
      if (i % 100 == 0 && engine.stats().immutableMemtables() > 0) {
        EngineTesting.await("flush", () -> engine.stats().immutableMemtables() == 0);
      }
    }
    return i;
  }

  private static void assertAllReadBack(LsmEngine engine, int written, java.util.function.IntUnaryOperator order) {
    for (int i = 0; i < written; i++) {
      assertThat(engine.get(key(order.applyAsInt(i)))).as("key %d", order.applyAsInt(i)).isNotNull();
    }
  }

  private static List<Long> tableNumbers(LsmEngine engine, int level) {
    ReadView view = engine.retainViewForTest();
    try {
      List<Long> numbers = new ArrayList<>();
      for (SharedTable t : view.levels().level(level)) numbers.add(t.fileNumber());
      return numbers;
    } finally {
      view.release();
    }
  }

  // A permutation of [0, 2^20) that jumps across the whole key range at every step.
  private static int scattered(int i) {
    return Integer.reverse(i) >>> 12;
  }

  private static byte[] key(int i) {
    return bytes("key-%08d".formatted(i));
  }
}
