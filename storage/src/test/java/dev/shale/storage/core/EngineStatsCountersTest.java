package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.SyncMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The counters EngineStats adds for metrics: fsyncs, stall time, block reads, bytes per level. */
class EngineStatsCountersTest {
  @TempDir Path dir;

  @Test
  void everyAcknowledgedWriteInSyncModeAlwaysCountsAnFsyncAndItsTime() {
    EngineOptions options = EngineTesting.smallOptions().withSyncMode(SyncMode.ALWAYS);
    try (Engine engine = Engine.open(dir, options)) {
      long before = engine.stats().logFsyncs();
      // One writer: each put is a group of its own, with an fsync of its own.
      for (int i = 0; i < 20; i++) engine.put(bytes("k" + i), bytes("v" + i));
      EngineStats stats = engine.stats();
      assertThat(stats.logFsyncs() - before).isGreaterThanOrEqualTo(20);
      assertThat(stats.logFsyncNanos()).isPositive();
    }
  }

  @Test
  void aReadOfAFlushedKeyCountsABlockReadAndLevelsAddUpToTheTableBytes() {
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      byte[] value = new byte[1_000];
      for (int i = 0; i < 200; i++) engine.put(bytes("key-" + i), value);
      EngineTesting.await("a flush", () -> engine.stats().flushes() >= 1);
      EngineStats flushed = engine.stats();
      assertThat(flushed.flushBytesWritten()).isPositive();
      assertThat(flushed.bytesPerLevel()).hasSameSizeAs(flushed.tablesPerLevel());
      assertThat(flushed.bytesPerLevel().stream().mapToLong(Long::longValue).sum()).isEqualTo(flushed.tableBytes());

      // key-0 was written first: it is in a table by now, not in the active memtable.
      long before = engine.stats().blockReads();
      assertThat(engine.get(bytes("key-0")).value()).isEqualTo(value);
      assertThat(engine.stats().blockReads()).isGreaterThan(before);
    }
  }

  @Test
  @Timeout(60)
  void stallTimeGrowsWhileWritesStallAndStopsOnceTheFlushRuns() throws Exception {
    FlushGate gate = new FlushGate();
    gate.hold();
    EngineOptions options = EngineTesting.smallOptions().withMaxImmutableMemtables(1).withWriteStallTimeoutMillis(600_000);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.withGate(gate))) {
      assertThat(engine.stats().writeStallNanos()).isZero();
      Thread writer = Thread.ofPlatform().start(() -> {
        byte[] value = new byte[1_000];
        for (int i = 0; i < 300; i++) engine.put(bytes("key-" + i), value);
      });
      EngineTesting.await("a stall", () -> engine.stats().writeStalls() == 1);
      long during = engine.stats().writeStallNanos();
      EngineTesting.await("stall time growing", () -> engine.stats().writeStallNanos() > during);

      gate.release();
      writer.join();
      EngineTesting.await("the held flush", () -> engine.stats().immutableMemtables() == 0);
      // With the stall over (and the writer done) the time stalled stays where it is.
      long after = engine.stats().writeStallNanos();
      assertThat(after).isGreaterThan(during);
      assertThat(engine.stats().writeStallNanos()).isEqualTo(after);
    }
  }
}
