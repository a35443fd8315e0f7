package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static dev.shale.storage.core.EngineTesting.drain;
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
import dev.shale.storage.VfsOp;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening a store whose disk is full (issue 31, defect 4): every open wrote a new manifest and a
 * new log segment, so on a disk without a free byte it failed ("No space left on device") and a
 * node could not start. Now the store opens, serves every acknowledged record (those only in the
 * log too, replayed into memtables it cannot flush yet), refuses writes with a
 * DiskFullException, writes nothing (its old manifest stays the state, byte for byte), and
 * finishes opening by itself once there is room: writes are then taken and the replayed
 * memtables flushed. The full disk is an {@link ErrorInjectingVfs} failing appends with ENOSPC,
 * as a disk without a free byte fails every write (an empty file can still be created).
 */
class OpenOnFullDiskTest {
  private static final int OPERATIONS = 3_000;
  private static final byte[] FIRST_KEY = new byte[0];

  @TempDir Path dir;

  private final ErrorInjectingVfs vfs = new ErrorInjectingVfs(0);
  private final EngineOptions options = EngineTesting.smallOptions().withEnv(Env.real().withVfs(vfs));
  private final EngineTesting.Model model = new EngineTesting.Model();

  @Test
  void aStoreOnADiskWithoutAFreeByteOpensServesReadsRefusesWritesAndWritesNothingUntilThereIsRoom() {
    fillStore();
    Map<String, String> before = files(dir);
    vfs.inject(Fault.on("*", VfsOp.APPEND).errno(Errno.ENOSPC)); // not a byte more fits

    try (Engine engine = Engine.open(dir, options)) {
      assertServesEveryAcknowledgedRecord(engine, "opened on a full disk");
      assertThat(engine.stats().immutableMemtables()).as("replayed log segments, not flushed").isPositive();
      assertRefusesWrites(engine);
    }
    assertThat(files(dir)).as("the files after an open and a close on a full disk").isEqualTo(before);

    try (Engine engine = Engine.open(dir, options)) {
      assertRefusesWrites(engine);
      vfs.clear(); // space is freed
      EngineTesting.await("writes resume", () -> tryPut(engine, "after", "the disk had room"));
      EngineTesting.await("the replayed logs flushed", () -> engine.stats().immutableMemtables() == 0);
      assertThat(engine.health().writeRefusal()).isNull();
      assertServesEveryAcknowledgedRecord(engine, "once the disk had room");
    }
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertServesEveryAcknowledgedRecord(engine, "reopened");
    }
  }

  // The new manifest fits but the new segment's header does not: the open must not fail either,
  // and the manifest it wrote (naming a segment not yet there) must open again.
  @Test
  void aStoreWhoseNewManifestFitsButNotItsNewLogSegmentOpensAndTakesWritesOnceThereIsRoom() {
    fillStore();
    vfs.inject(Fault.on("*.wal", VfsOp.APPEND).errno(Errno.ENOSPC));

    try (Engine engine = Engine.open(dir, options)) {
      assertServesEveryAcknowledgedRecord(engine, "opened without room for a log segment");
      assertRefusesWrites(engine);
    }
    try (Engine engine = Engine.open(dir, options)) {
      assertServesEveryAcknowledgedRecord(engine, "opened again without room for a log segment");
      vfs.clear();
      EngineTesting.await("writes resume", () -> tryPut(engine, "after", "the disk had room"));
      EngineTesting.await("the replayed logs flushed", () -> engine.stats().immutableMemtables() == 0);
    }
    try (Engine engine = Engine.open(dir, EngineTesting.smallOptions())) {
      assertServesEveryAcknowledgedRecord(engine, "reopened");
    }
  }

  // Puts and deletes over 64 KiB memtables: tables, and the last writes only in the log.
  private void fillStore() {
    try (Engine engine = Engine.open(dir, options)) {
      for (int i = 0; i < OPERATIONS; i++) {
        String key = "key-%05d".formatted(i * 7_919 % 2_000);
        if (i % 10 == 9) {
          long version = engine.delete(bytes(key));
          model.apply(Entry.tombstone(bytes(key), version));
        } else {
          byte[] value = bytes(("value-" + i + "-").repeat(8));
          model.apply(new Entry(bytes(key), engine.put(bytes(key), value), value, Entry.NEVER));
        }
      }
      assertThat(engine.stats().tables()).as("tables written before the disk filled").isPositive();
    }
  }

  private void assertServesEveryAcknowledgedRecord(Engine engine, String context) {
    model.assertHeldBy(engine, context);
    assertThat(drain(engine.scan(FIRST_KEY, null, false)))
        .as(context + ": a scan of every key").isEqualTo(model.scan(FIRST_KEY, null, false));
  }

  private static void assertRefusesWrites(Engine engine) {
    assertThatThrownBy(() -> engine.put(bytes("refused"), bytes("value")))
        .isInstanceOf(DiskFullException.class)
        .hasMessageContaining("full")
        .hasMessageContaining("nothing was written");
    assertThatThrownBy(() -> engine.delete(bytes("key-00000"))).isInstanceOf(DiskFullException.class);
    assertThat(engine.get(bytes("refused"))).as("a refused write's key").isNull();
    assertThat(engine.health().writeRefusal()).contains("full");
    assertThat(engine.health().refusalClearsByItself()).isTrue();
  }

  private boolean tryPut(Engine engine, String key, String value) {
    try {
      long version = engine.put(bytes(key), bytes(value));
      model.apply(new Entry(bytes(key), version, bytes(value), Entry.NEVER));
      return true;
    } catch (DiskFullException e) {
      return false;
    }
  }

  // Every file of the store but LOCK, by name: its size and the SHA-256 of its bytes.
  private static Map<String, String> files(Path directory) {
    Map<String, String> files = new TreeMap<>();
    for (String name : EngineTesting.fileNames(directory)) {
      if (name.equals(FileNames.LOCK)) continue;
      try {
        byte[] content = Files.readAllBytes(directory.resolve(name));
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(content);
        files.put(name, content.length + " bytes, sha-256 " + HexFormat.of().formatHex(digest));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every JDK has SHA-256", e);
      }
    }
    return files;
  }
}
