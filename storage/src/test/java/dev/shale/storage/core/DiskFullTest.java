package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.DiskFullException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.SyncMode;
import dev.shale.testkit.SmallDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real full disk (a small tmpfs): writes are refused with a DiskFullException and nothing
 * written, reads go on, and writes resume by themselves once space is freed (issue 12, defect 4).
 */
class DiskFullTest {
  static final int VALUE_BYTES = 1024;

  private SmallDisk disk;
  private Path dir;

  @BeforeEach
  void mount() throws IOException {
    disk = SmallDisk.mount(8 << 20);
    dir = disk.root().resolve("store");
  }

  @AfterEach
  void unmount() {
    if (disk != null) disk.close();
  }

  // No reserve: the writes run into the real ENOSPC, and the failed append is cut back.
  @Test
  void aWriteThatFindsTheDiskFullIsTakenBackAndWritesResumeOnceSpaceIsFreed() throws IOException {
    fillUntilRefusedThenFree(options().withDiskReserveBytes(0));
  }

  // A reserve: the writes are refused before the disk is full, so flushes always have room.
  @Test
  void writesAreRefusedUnderTheReserveAndResumeOnceSpaceIsFreed() throws IOException {
    fillUntilRefusedThenFree(options().withDiskReserveBytes(1 << 20));
  }

  // Opening used to replay the logs into tables before deleting them, which needs as much free
  // space as the logs hold: a node whose disk filled up could not start. Now the replayed
  // segments are kept with their memtables and flushed once there is room.
  @Test
  void aStoreWhoseDiskIsFullStillOpensServesReadsAndFlushesOnceSpaceIsFreed() throws IOException {
    EngineOptions options = options().withMemtableSizeBytes(4 << 20).withDiskReserveBytes(256 << 10);
    List<Integer> acknowledged = new ArrayList<>();
    try (Engine engine = Engine.open(dir, options)) {
      for (int i = 0; i < 2_000; i++) { // about 2 MiB, all in the log: no flush yet
        engine.put(key(i), value(i));
        acknowledged.add(i);
      }
    }
    Path ballast = disk.fillLeaving("ballast", 64 << 10);

    try (Engine engine = Engine.open(dir, options)) {
      for (int i : acknowledged) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
      assertThatThrownBy(() -> engine.put(key(-1), value(-1))).isInstanceOf(DiskFullException.class);

      Files.delete(ballast);
      EngineTesting.await("writes resume", () -> tryPut(engine, 2_000));
      acknowledged.add(2_000);
      EngineTesting.await("the replayed log flushed", () -> engine.stats().tables() > 0
          && engine.stats().immutableMemtables() == 0);
    }
    try (Engine engine = Engine.open(dir, options)) {
      for (int i : acknowledged) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
    }
  }

  // Issue 31, defect 4: without a free byte not even opening's new manifest and log segment fit;
  // opening failed. Now it opens for reads and finishes opening once space is freed.
  @Test
  void aStoreOnADiskWithoutAFreeByteOpensForReadsAndTakesWritesOnceSpaceIsFreed() throws IOException {
    EngineOptions options = options().withMemtableSizeBytes(4 << 20).withDiskReserveBytes(256 << 10);
    List<Integer> acknowledged = new ArrayList<>();
    try (Engine engine = Engine.open(dir, options)) {
      for (int i = 0; i < 2_000; i++) { // about 2 MiB, all in the log: no flush yet
        engine.put(key(i), value(i));
        acknowledged.add(i);
      }
    }
    Path ballast = disk.fillUp("ballast");

    try (Engine engine = Engine.open(dir, options)) {
      for (int i : acknowledged) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
      assertThatThrownBy(() -> engine.put(key(-1), value(-1))).isInstanceOf(DiskFullException.class)
          .hasMessageContaining("opening could not write");
      assertThat(engine.health().refusalClearsByItself()).isTrue();

      Files.delete(ballast);
      EngineTesting.await("writes resume", () -> tryPut(engine, 2_000));
      acknowledged.add(2_000);
      EngineTesting.await("the replayed log flushed", () -> engine.stats().tables() > 0
          && engine.stats().immutableMemtables() == 0);
    }
    try (Engine engine = Engine.open(dir, options)) {
      for (int i : acknowledged) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
    }
  }

  private void fillUntilRefusedThenFree(EngineOptions options) throws IOException {
    List<Integer> acknowledged = new ArrayList<>();
    int refused;
    try (Engine engine = Engine.open(dir, options)) {
      Path ballast = disk.fillLeaving("ballast", 3 << 20);
      refused = writeUntilRefused(engine, acknowledged);
      // The disk stays full: else a flush that lands meanwhile (deleting its log) or a compaction
      // makes room, and the write below is rightly taken.
      Path rest = disk.fillUp("rest");

      assertThat(engine.health().writeRefusal()).contains("disk");
      assertThat(engine.health().refusalClearsByItself()).isTrue();
      for (int i : acknowledged) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
      assertThatThrownBy(() -> engine.put(key(refused), value(refused)))
          .isInstanceOf(DiskFullException.class).hasMessageContaining("nothing was written");

      Files.delete(ballast);
      Files.delete(rest);
      EngineTesting.await("writes resume", () -> tryPut(engine, refused));
      acknowledged.add(refused);
      assertThat(engine.health().writeRefusal()).isNull();
      for (int i = refused + 1; i < refused + 100; i++) {
        engine.put(key(i), value(i));
        acknowledged.add(i);
      }
    }
    try (Engine engine = Engine.open(dir, options)) {
      for (int i : acknowledged) assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
    }
  }

  // Writes new keys until one is refused; returns the refused key, which must hold no value.
  private static int writeUntilRefused(Engine engine, List<Integer> acknowledged) {
    for (int i = 0; i < 100_000; i++) {
      try {
        engine.put(key(i), value(i));
        acknowledged.add(i);
      } catch (DiskFullException e) {
        assertThat(engine.get(key(i))).as("a refused write's key").isNull();
        return i;
      }
    }
    throw new AssertionError("100000 writes of " + VALUE_BYTES + " bytes fit an 8 MiB disk");
  }

  // The keys, values and retried put are shared with FlushFindsDiskFullTest.
  static boolean tryPut(Engine engine, int i) {
    try {
      engine.put(key(i), value(i));
      return true;
    } catch (DiskFullException e) {
      return false;
    }
  }

  private static EngineOptions options() {
    return EngineTesting.smallOptions().withMemtableSizeBytes(256 << 10).withSyncMode(SyncMode.ALWAYS);
  }

  static byte[] key(int i) {
    return bytes("key-%06d".formatted(i));
  }

  static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    for (int j = 0; j < v.length; j++) v[j] = (byte) (i * 31 + j);
    return v;
  }
}
