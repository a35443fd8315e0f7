package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.WriteStallException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Writers wait, then give up, when flushes fall behind; nothing partial is stored. */
class BackpressureTest {
  @TempDir Path dir;

  @Test
  @Timeout(60)
  void aWriterGivesUpWhileFlushesAreHeldBackAndProceedsOnceTheyRun() {
    FlushGate gate = new FlushGate();
    gate.hold();
    EngineOptions options = EngineTesting.smallOptions()
        .withMaxImmutableMemtables(1)
        .withWriteStallTimeoutMillis(50);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.withGate(gate))) {
      byte[] value = new byte[1_000];
      int written = 0;
      WriteStallException stall = null;
      while (stall == null) {
        assertThat(written).as("writes before a stall").isLessThan(1_000);
        try {
          engine.put(key(written), value);
          written++;
        } catch (WriteStallException e) {
          stall = e;
        }
      }
      assertThat(stall)
          .hasMessageContaining("nothing was written")
          .hasMessageContaining("frozen memtables");
      EngineStats stats = engine.stats();
      assertThat(stats.immutableMemtables()).isEqualTo(1);
      assertThat(stats.writeStalls()).isEqualTo(1);
      assertThat(stats.writeStallRejections()).isEqualTo(1);
      assertThat(engine.get(key(written))).isNull();
      int refused = written;
      assertThatThrownBy(() -> engine.delete(key(0))).isInstanceOf(WriteStallException.class);
      assertThat(engine.get(key(0)).isTombstone()).isFalse();

      gate.release();
      EngineTesting.await("the held flush", () -> engine.stats().immutableMemtables() == 0);
      engine.put(key(refused), value);
      for (int i = 0; i <= refused; i++) assertThat(engine.get(key(i)).value()).isEqualTo(value);
      assertThat(engine.stats().writeStallRejections()).isEqualTo(2);
    }
  }

  @Test
  @Timeout(60)
  void closeEndsAStallAtOnce() throws Exception {
    FlushGate gate = new FlushGate();
    gate.hold();
    EngineOptions options = EngineTesting.smallOptions()
        .withMaxImmutableMemtables(1)
        .withWriteStallTimeoutMillis(600_000);
    LsmEngine engine = LsmEngine.open(dir, options, Hooks.withGate(gate));
    Thread writer = Thread.ofPlatform().start(() -> {
      byte[] value = new byte[1_000];
      try {
        for (int i = 0; ; i++) engine.put(key(i), value);
      } catch (RuntimeException expected) {
        // "engine is closed", once close() ends the stall
      }
    });
    EngineTesting.await("a stall", () -> engine.stats().writeStalls() == 1);
    engine.close();
    writer.join();
    try (LsmEngine reopened = LsmEngine.open(dir, options, Hooks.none())) {
      assertThat(reopened.get(key(0))).isNotNull();
    }
  }

  private static byte[] key(int i) {
    return bytes(String.format("key-%06d", i));
  }
}
