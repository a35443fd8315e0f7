package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.WriteStallException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With compactions held back, level 0 fills: writes slow down from the slowdown trigger, stop at
 * the stop trigger (L0 tables + frozen memtables) and give up after writeStallTimeoutMillis; once
 * compaction runs again they go on.
 */
class CompactionBackpressureTest {
  @TempDir Path dir;

  @Test
  @Timeout(120)
  void writesSlowDownThenStopWhileCompactionIsBehindAndResumeAfter() {
    FlushGate compactions = new FlushGate();
    compactions.hold();
    EngineOptions options = EngineTesting.smallOptions()
        .withMaxImmutableMemtables(1)
        .withL0Triggers(1, 2, 4)
        .withWriteStallTimeoutMillis(100);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.withCompactionGate(compactions))) {
      byte[] value = new byte[1_000];
      int written = 0;
      WriteStallException stall = null;
      while (stall == null) {
        assertThat(written).as("writes before a stall").isLessThan(2_000);
        assertThat(level0AndFrozen(engine)).isLessThanOrEqualTo(options.l0StopTrigger());
        try {
          engine.put(key(written), value);
          written++;
        } catch (WriteStallException e) {
          stall = e;
        }
      }
      assertThat(stall).hasMessageContaining("compaction is behind")
          .hasMessageContaining("nothing was written");
      EngineStats stalled = engine.stats();
      assertThat(stalled.writeSlowdowns()).as("slowed down before stopping").isPositive();
      assertThat(stalled.compactions()).isZero();
      assertThat(level0AndFrozen(engine)).isEqualTo(options.l0StopTrigger());
      assertThat(engine.get(key(written))).isNull();

      compactions.release();
      EngineTesting.await("level 0 compacted", () -> engine.stats().tablesPerLevel().get(0) == 0);
      for (int i = written; i < written + 200; i++) engine.put(key(i), value);
      for (int i = 0; i < written + 200; i++) assertThat(engine.get(key(i)).value()).isEqualTo(value);
      assertThat(engine.stats().compactions()).isPositive();
    }
  }

  private static int level0AndFrozen(LsmEngine engine) {
    ReadView view = engine.retainViewForTest();
    try {
      return view.levels().level(0).size() + view.frozen().size();
    } finally {
      view.release();
    }
  }

  private static byte[] key(int i) {
    return bytes("key-%06d".formatted(i));
  }
}
