package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.storage.ErrorInjectingVfs;
import dev.shale.storage.ErrorInjectingVfs.Fault;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.StorageException;
import dev.shale.storage.VfsOp;
import dev.shale.storage.SyncMode;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes and reads through the public API, including the edges of what it accepts. */
class WritePathTest {
  @TempDir Path dir;

  @Test
  void emptyAndSixteenMebibyteValuesRoundTripAcrossReopen() {
    byte[] big = new byte[16 << 20];
    new Random(42).nextBytes(big);
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      engine.put(bytes("empty"), new byte[0]);
      engine.put(bytes("big"), big);
      engine.put(bytes("after"), bytes("small")); // freezes the memtable the big value filled
      assertThat(engine.get(bytes("empty")).value()).isEmpty();
      assertThat(engine.get(bytes("big")).value()).isEqualTo(big);
      EngineTesting.await("the big value's flush", () -> engine.stats().flushes() >= 1);
      assertThat(engine.get(bytes("big")).value()).isEqualTo(big);
    }
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      Entry empty = engine.get(bytes("empty"));
      assertThat(empty.isTombstone()).isFalse();
      assertThat(empty.value()).isEmpty();
      assertThat(engine.get(bytes("big")).value()).isEqualTo(big);
      assertThat(engine.get(bytes("after")).value()).isEqualTo(bytes("small"));
    }
  }

  @Test
  void manyKeysOverSeveralFlushesReadBackBeforeAndAfterReopen() {
    int keys = 5_000;
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      for (int i = 0; i < keys; i++) engine.put(key(i), value(i));
      EngineTesting.await("several flushes", () -> engine.stats().flushes() >= 5);
      for (int i = 0; i < keys; i++) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
      EngineStats stats = engine.stats();
      assertThat(stats.tables()).isPositive(); // compaction merges the flushed tables
      assertThat(stats.tableBytes()).isPositive();
    }
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      for (int i = 0; i < keys; i++) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
    }
  }

  @Test
  void theHighestVersionWinsWhateverOrderWritesArriveIn() {
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      long stored = engine.put(bytes("k"), bytes("current"));
      engine.write(bytes("k"), bytes("stale"), stored - 1);
      assertThat(engine.get(bytes("k")).value()).isEqualTo(bytes("current"));
      engine.write(bytes("k"), bytes("aaa"), stored); // a tie: the greater value bytes win
      assertThat(engine.get(bytes("k")).value()).isEqualTo(bytes("current"));
      engine.write(bytes("k"), null, stored); // a tie: the tombstone wins
      assertThat(engine.get(bytes("k"))).isEqualTo(Entry.tombstone(bytes("k"), stored));
      long newer = engine.put(bytes("k"), bytes("back"));
      assertThat(newer).isGreaterThan(stored);
      assertThat(engine.get(bytes("k")).value()).isEqualTo(bytes("back"));
      long deleted = engine.delete(bytes("k"));
      assertThat(engine.get(bytes("k"))).isEqualTo(Entry.tombstone(bytes("k"), deleted));
    }
  }

  @Test
  void anOldVersionWrittenAfterFlushesLosesToTheNewerOneInATable() {
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      long newest = engine.put(bytes("k"), bytes("newest"));
      for (int i = 0; i < 2_000; i++) engine.put(key(i), value(i)); // pushes "k" into a table
      EngineTesting.await("flushes", () -> engine.stats().flushes() >= 2);
      engine.write(bytes("k"), bytes("older, but written last"), newest - 1);
      assertThat(engine.get(bytes("k")).value()).isEqualTo(bytes("newest"));
    }
  }

  @Test
  void invalidArgumentsAreRefusedAndNothingIsWritten() {
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThatThrownBy(() -> engine.put(new byte[0], bytes("v")))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
      assertThatThrownBy(() -> engine.put(new byte[Keys.MAX_KEY_BYTES + 1], bytes("v")))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
      assertThatThrownBy(() -> engine.put(bytes("k"), new byte[Engine.MAX_VALUE_BYTES + 1]))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value");
      assertThatThrownBy(() -> engine.put(bytes("k"), null))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> engine.write(bytes("k"), bytes("v"), -1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version");
      assertThatThrownBy(() -> engine.write(bytes("k"), bytes("v"), Long.MAX_VALUE))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ahead of this engine's wall clock");
      assertThatThrownBy(() -> engine.tryWrite(bytes("k"), null, Long.MAX_VALUE - 50))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ahead of this engine's wall clock");
      assertThat(engine.clock().current()).as("the clock did not follow").isLessThan(Long.MAX_VALUE - 50);
      assertThat(engine.get(bytes("k"))).isNull();
      assertThat(engine.stats().memtableBytes()).isZero();

      engine.put(new byte[Keys.MAX_KEY_BYTES], bytes("the longest key"));
      assertThat(engine.get(new byte[Keys.MAX_KEY_BYTES]).value())
          .isEqualTo(bytes("the longest key"));
    }
  }

  @Test
  void aClosedEngineRefusesEveryCallButClose() {
    Engine engine = Engine.open(dir, EngineTesting.smallOptions());
    engine.put(bytes("k"), bytes("v"));
    engine.close();
    engine.close();
    assertThatThrownBy(() -> engine.get(bytes("k")))
        .isInstanceOf(StorageException.class).hasMessageContaining("engine is closed");
    assertThatThrownBy(() -> engine.put(bytes("k"), bytes("v")))
        .isInstanceOf(StorageException.class).hasMessageContaining("engine is closed");
    assertThatThrownBy(() -> engine.delete(bytes("k")))
        .isInstanceOf(StorageException.class).hasMessageContaining("engine is closed");
    assertThatThrownBy(engine::stats)
        .isInstanceOf(StorageException.class).hasMessageContaining("engine is closed");
  }

  @Test
  void afterAFailedLogWriteEveryLaterWriteFailsAndAcknowledgedOnesSurvive() {
    ErrorInjectingVfs vfs = new ErrorInjectingVfs(0);
    EngineOptions options = EngineTesting.smallOptions().withEnv(Env.real().withVfs(vfs));
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      engine.put(bytes("before"), bytes("acknowledged"));
      vfs.inject(Fault.on("*.wal", VfsOp.APPEND));
      assertThatThrownBy(() -> engine.put(bytes("during"), bytes("x".repeat(100))))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("Input/output error");
      vfs.clear();
      assertThatThrownBy(() -> engine.put(bytes("after"), bytes("v")))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("earlier failure")
          .hasMessageContaining("Input/output error");
      assertThat(engine.get(bytes("before")).value()).isEqualTo(bytes("acknowledged"));
      assertThat(engine.get(bytes("during"))).isNull();
    }
    // The half-written record is the log's torn tail.
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThat(engine.get(bytes("before")).value()).isEqualTo(bytes("acknowledged"));
      assertThat(engine.get(bytes("during"))).isNull();
      engine.put(bytes("after"), bytes("works again"));
    }
  }

  @Test
  void inSyncModeAlwaysAFailedFsyncLeavesTheWriteUnacknowledgedAndUnseen() {
    ErrorInjectingVfs vfs = new ErrorInjectingVfs(0);
    EngineOptions options =
        EngineTesting.smallOptions().withSyncMode(SyncMode.ALWAYS).withEnv(Env.real().withVfs(vfs));
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      engine.put(bytes("before"), bytes("durable"));
      vfs.inject(Fault.on("*.wal", VfsOp.SYNC));
      assertThatThrownBy(() -> engine.put(bytes("during"), bytes("v")))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("fsync");
      assertThat(engine.get(bytes("during"))).isNull();
      assertThat(engine.get(bytes("before")).value()).isEqualTo(bytes("durable"));
      vfs.clear();
      assertThatThrownBy(() -> engine.delete(bytes("before")))
          .hasMessageContaining("earlier failure");
    }
  }

  // The fault comes once the memtable is frozen: a switch records its new segment in the
  // manifest too, and a failed record fails the write that needed the switch (LogSegmentsAtOpenTest).
  @Test
  void aFailingFlushIsRetriedAndTheDataStaysReadable() {
    ErrorInjectingVfs vfs = new ErrorInjectingVfs(0);
    EngineOptions options = EngineTesting.smallOptions().withEnv(Env.real().withVfs(vfs));
    FlushGate gate = new FlushGate();
    gate.hold();
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.withGate(gate))) {
      int keys = 0;
      while (engine.stats().immutableMemtables() == 0) {
        engine.put(key(keys), value(keys));
        keys++;
      }
      Fault manifestSyncs = vfs.inject(Fault.on("MANIFEST-*", VfsOp.SYNC));
      gate.release();
      long failuresBefore = 0;
      EngineTesting.await(
          "a failed manifest commit", () -> manifestSyncs.injected() > failuresBefore);
      assertThat(engine.stats().flushes()).isZero();
      for (int i = 0; i < keys; i++) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));

      vfs.clear();
      EngineTesting.await("the retried flush", () -> engine.stats().flushes() == 1);
      for (int i = 0; i < keys; i++) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
    }
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThat(engine.get(key(0)).value()).isEqualTo(value(0));
    }
  }

  static byte[] key(int i) {
    return bytes(String.format("key-%06d", i));
  }

  static byte[] value(int i) {
    return bytes("value-" + i + "-" + "v".repeat(i % 50));
  }
}
