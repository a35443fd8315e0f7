package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.await;
import static dev.shale.storage.core.EngineTesting.bytes;
import static dev.shale.storage.core.EngineTesting.fileNames;
import static dev.shale.storage.core.EngineTesting.newest;
import static dev.shale.storage.core.EngineTesting.openAndFlushReplayedLogs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.StorageException;
import dev.shale.storage.Versions;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening a directory: docs/format.md "Recovery at open". */
class RecoveryTest {
  private static final int KEYS = 10;

  @TempDir Path dir;

  @Test
  void aTruncatedLastRecordIsDroppedAndEveryEarlierOneKept() throws IOException {
    writeKeysAndClose();
    Path log = newest(dir, FileNames.Kind.LOG);
    byte[] bytes = Files.readAllBytes(log);
    Files.write(log, Arrays.copyOf(bytes, bytes.length - 3));

    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < KEYS - 1; i++) assertThat(value(engine, i)).isEqualTo("value-" + i);
      assertThat(engine.get(key(KEYS - 1))).isNull();
    }
  }

  @Test
  void aCorruptedLastRecordIsDroppedAndEveryEarlierOneKept() throws IOException {
    writeKeysAndClose();
    Path log = newest(dir, FileNames.Kind.LOG);
    byte[] bytes = Files.readAllBytes(log);
    bytes[bytes.length - 2] ^= 0x40; // inside the last record's value
    Files.write(log, bytes);

    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < KEYS - 1; i++) assertThat(value(engine, i)).isEqualTo("value-" + i);
      assertThat(engine.get(key(KEYS - 1))).isNull();
    }
  }

  @Test
  void openDeletesOrphanTablesAndTemporariesButLeavesOtherFilesAlone() throws IOException {
    writeKeysAndClose();
    Files.write(dir.resolve("000999.sst"), new byte[100]);
    Files.writeString(dir.resolve("notes.txt"), "an operator's notes");
    Files.writeString(dir.resolve("000998.sst.tmp"), "half a table");
    Files.writeString(dir.resolve("42.sst"), "not a Shale name: fewer than six digits");

    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      assertThat(value(engine, 3)).isEqualTo("value-3");
      assertThat(fileNames(dir))
          .contains("notes.txt", "42.sst")
          .doesNotContain("000999.sst", "000998.sst.tmp");
    }
  }

  @Test
  void openLeavesOneManifestOneLogAndTheTablesItNames() throws IOException {
    writeKeysAndClose();
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      // Open keeps the replayed segment with its memtable; the flush thread writes it out.
      await("the replayed log flushed and deleted", () -> engine.stats().tables() == 1
          && fileNames(dir).stream().filter(n -> n.endsWith(".wal")).count() == 1);
      assertThat(fileNames(dir)).filteredOn(n -> n.startsWith("MANIFEST-")).hasSize(1);
      assertThat(fileNames(dir)).filteredOn(n -> n.endsWith(".sst")).hasSize(1);
    }
  }

  @Test
  void aSecondOpenOfTheSameDirectoryFailsClearly() {
    try (Engine first = Engine.open(dir, EngineOptions.defaults())) {
      assertThatThrownBy(() -> Engine.open(dir, EngineOptions.defaults()))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining(dir.toString())
          .hasMessageContaining("LOCK");
      first.put(bytes("still"), bytes("works"));
    }
    try (Engine again = Engine.open(dir, EngineOptions.defaults())) {
      assertThat(again.get(bytes("still")).value()).isEqualTo(bytes("works"));
    }
  }

  @Test
  void logsWithoutAManifestAreRefused() throws IOException {
    writeKeysAndClose();
    for (String name : fileNames(dir)) {
      if (name.startsWith("MANIFEST-")) Files.delete(dir.resolve(name));
    }
    assertThatThrownBy(() -> Engine.open(dir, EngineOptions.defaults()))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("no valid MANIFEST")
        .hasMessageContaining(dir.toString());
  }

  @Test
  void aTableNamedByTheManifestButMissingIsCorruption() throws IOException {
    writeKeysAndClose();
    openAndFlushReplayedLogs(dir);
    Path table = newest(dir, FileNames.Kind.TABLE);
    Files.delete(table);

    assertThatThrownBy(() -> Engine.open(dir, EngineOptions.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(table.getFileName().toString())
        .hasMessageContaining("missing");
    // The failed open released the directory: the next one fails the same way, not on LOCK.
    assertThatThrownBy(() -> Engine.open(dir, EngineOptions.defaults()))
        .isInstanceOf(CorruptionException.class);
  }

  @Test
  void theClockMovesPastEveryVersionSeen() {
    // Written while the wall clock read a day later: the clock then went back.
    long laterMillis = System.currentTimeMillis() + 86_400_000L;
    long future = Versions.of(laterMillis, 7);
    try (Engine engine = Engine.open(dir, EngineOptions.defaults().withEnv(Env.real().withWallClock(() -> laterMillis)))) {
      engine.write(bytes("from-the-future"), bytes("v"), future);
    }
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      assertThat(engine.stats().lastVersion()).isGreaterThanOrEqualTo(future);
      assertThat(engine.put(bytes("now"), bytes("v"))).isGreaterThan(future);
    }
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      // Now from a table rather than the log.
      assertThat(engine.put(bytes("later"), bytes("v"))).isGreaterThan(future);
      assertThat(engine.get(bytes("from-the-future")))
          .isEqualTo(new Entry(bytes("from-the-future"), future, bytes("v")));
    }
  }

  @Test
  void storedDataAtTheHighestVersionMakesWritesFailInsteadOfWrapping() {
    // The highest version is within reach only of a wall clock at the end of the versions' range;
    // before versions from elsewhere were bounded, any replica write could store it.
    EngineOptions endOfTime = EngineOptions.defaults().withEnv(Env.real().withWallClock(() -> Versions.MAX_PHYSICAL_MILLIS));
    try (Engine engine = Engine.open(dir, endOfTime)) {
      engine.write(bytes("poisoned"), bytes("v"), Long.MAX_VALUE - 1);
    }
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      assertThat(engine.put(bytes("a"), bytes("v"))).isEqualTo(Long.MAX_VALUE);
      assertThatThrownBy(() -> engine.put(bytes("b"), bytes("v")))
          .isInstanceOf(StorageException.class).hasMessageContaining("the clock cannot advance");
      assertThat(engine.get(bytes("b"))).as("nothing written with a wrapped version").isNull();
      assertThat(engine.get(bytes("a")).version()).isEqualTo(Long.MAX_VALUE);
    }
  }

  private void writeKeysAndClose() {
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), bytes("value-" + i));
    }
  }

  private static byte[] key(int i) {
    return bytes("key-" + i);
  }

  private static String value(Engine engine, int i) {
    Entry entry = engine.get(key(i));
    return entry == null ? null : new String(entry.value(), StandardCharsets.UTF_8);
  }
}
