package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.DiskFullException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.ErrorInjectingVfs;
import dev.shale.storage.ErrorInjectingVfs.Errno;
import dev.shale.storage.ErrorInjectingVfs.Fault;
import dev.shale.storage.SyncMode;
import dev.shale.storage.VfsOp;
import dev.shale.storage.Versions;
import dev.shale.storage.wal.LogWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Engine#tryWrite}: a write done at once when nothing would make it wait, with the same
 * effect as {@link Engine#write}, and nothing written when something would; and
 * {@link Engine#tryWriteAll}, the same for a group of records, all or none.
 */
class TryWriteTest {
  @TempDir Path dir;

  @Test
  void writesAValueAndATombstoneLikeWriteAndTheLogKeepsThem() {
    long version = Versions.of(1_000_000, 0);
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThat(engine.tryWrite(bytes("a"), bytes("value"), version)).isTrue();
      assertThat(engine.tryWrite(bytes("b"), null, version + 1)).isTrue();
      assertThat(engine.get(bytes("a"))).isEqualTo(new Entry(bytes("a"), version, bytes("value")));
      assertThat(engine.clock().next()).as("the clock observed the versions").isGreaterThan(version + 1);
    }
    try (Engine reopened = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThat(reopened.get(bytes("a"))).isEqualTo(new Entry(bytes("a"), version, bytes("value")));
      assertThat(reopened.get(bytes("b"))).isEqualTo(Entry.tombstone(bytes("b"), version + 1));
    }
  }

  @Test
  void checksItsArgumentsLikeWrite() {
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThatThrownBy(() -> engine.tryWrite(bytes("a"), bytes("v"), -1)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> engine.tryWrite(new byte[0], bytes("v"), 1)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void declinesWhenEveryWriteWaitsForAnFsync() {
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions().withSyncMode(SyncMode.ALWAYS))) {
      assertThat(engine.tryWrite(bytes("a"), bytes("v"), 1)).isFalse();
      assertThat(engine.get(bytes("a"))).isNull();
    }
  }

  @Test
  @Timeout(120)
  void declinesWhileWritesAreSlowedDownAndWritesOnceCompactionCaughtUp() {
    FlushGate compactions = new FlushGate();
    compactions.hold();
    EngineOptions options = EngineTesting.smallOptions().withL0Triggers(1, 2, 8);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.withCompactionGate(compactions))) {
      byte[] value = new byte[1_000];
      for (int i = 0; engine.stats().tablesPerLevel().get(0) < options.l0SlowdownTrigger(); i++) {
        assertThat(i).as("writes before level 0 reaches the slowdown trigger").isLessThan(10_000);
        engine.put(bytes("fill-" + i), value);
      }

      for (int i = 0; i < 100; i++) {
        assertThat(engine.tryWrite(bytes("late-" + i), value, 1)).as("write %d at the slowdown trigger", i).isFalse();
        assertThat(engine.get(bytes("late-" + i))).isNull();
      }

      compactions.release();
      EngineTesting.await("level 0 compacted", () -> engine.stats().tablesPerLevel().get(0) == 0);
      // The flush and compaction threads take the engine's lock now and then: tryWrite declines
      // while they hold it, so it may take a few tries.
      EngineTesting.await("a write done at once", () -> engine.tryWrite(bytes("late"), value, 1));
      assertThat(engine.get(bytes("late")).value()).isEqualTo(value);
    }
  }

  @Test
  void writesAGroupInOrderAndTheLogKeepsIt() {
    long version = Versions.of(1_000_000, 0);
    List<Entry> group = List.of(
        new Entry(bytes("a"), version, bytes("first")),
        new Entry(bytes("b"), version + 1, null),
        new Entry(bytes("a"), version + 2, bytes("second")));
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThat(engine.tryWriteAll(group)).isTrue();
      assertThat(engine.get(bytes("a"))).isEqualTo(group.get(2));
      assertThat(engine.clock().next()).as("the clock observed the versions").isGreaterThan(version + 2);
    }
    try (Engine reopened = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThat(reopened.get(bytes("a"))).isEqualTo(group.get(2));
      assertThat(reopened.get(bytes("b"))).isEqualTo(group.get(1));
    }
  }

  @Test
  void writesNoneOfAGroupWithAnInvalidRecord() {
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      List<Entry> group = List.of(new Entry(bytes("a"), 1, bytes("v")), new Entry(new byte[0], 2, bytes("v")));
      assertThatThrownBy(() -> engine.tryWriteAll(group)).isInstanceOf(IllegalArgumentException.class);
      assertThat(engine.get(bytes("a"))).isNull();
    }
  }

  @Test
  void declinesAGroupLargerThanOneAppendButTakesOneLargeRecord() {
    byte[] half = new byte[LogWriter.GROUP_BYTES / 2];
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertThat(engine.tryWriteAll(List.of(new Entry(bytes("a"), 1, half), new Entry(bytes("b"), 2, half)))).isFalse();
      assertThat(engine.get(bytes("a"))).isNull();
      assertThat(engine.get(bytes("b"))).isNull();
      byte[] large = new byte[LogWriter.GROUP_BYTES + 1];
      assertThat(engine.tryWriteAll(List.of(new Entry(bytes("c"), 3, large)))).isTrue();
      assertThat(engine.get(bytes("c")).value()).isEqualTo(large);
      // The queue is free again: a blocking write goes through.
      engine.put(bytes("d"), bytes("v"));
    }
  }

  @Test
  @Timeout(60)
  void aGroupTheDiskRefusesWritesNoneAndLeavesTheQueueFree() {
    ErrorInjectingVfs vfs = new ErrorInjectingVfs(0);
    EngineOptions options = EngineTesting.smallOptions().withDiskReserveBytes(0).withEnv(Env.real().withVfs(vfs));
    try (Engine engine = Engine.open(dir, options)) {
      Fault full = Fault.on("*.wal", VfsOp.APPEND).errno(Errno.ENOSPC);
      vfs.inject(full);
      List<Entry> group = List.of(new Entry(bytes("a"), 1, bytes("v")), new Entry(bytes("b"), 2, bytes("v")));
      assertThatThrownBy(() -> engine.tryWriteAll(group)).isInstanceOf(DiskFullException.class);
      assertThat(full.injected()).isEqualTo(1);
      assertThat(engine.get(bytes("a"))).isNull();
      assertThat(engine.get(bytes("b"))).isNull();
      vfs.clear();
      // No write of the failed group is left queued: later writes, blocking or not, go through
      // (once the engine has seen the space again; a queued write would block them for good).
      EngineTesting.await("a blocking write after the refusal", () -> {
        try {
          engine.put(bytes("c"), bytes("v"));
          return true;
        } catch (DiskFullException e) {
          return false;
        }
      });
      assertThat(engine.tryWriteAll(group)).isTrue();
      assertThat(engine.get(bytes("b")).value()).isEqualTo(bytes("v"));
    }
  }
}
