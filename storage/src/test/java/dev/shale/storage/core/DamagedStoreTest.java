package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static dev.shale.storage.core.EngineTesting.fileNames;
import static dev.shale.storage.core.EngineTesting.newest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage that must make opening fail rather than lose data silently, and damage the engine serves
 * around (docs/format.md, "Damage found at open"): the fixed cases of issue 12's defects 1, 2, 7.
 */
class DamagedStoreTest {
  private static final int KEYS = 200;

  @TempDir Path dir;
  @TempDir Path copy;
  private int written; // keys 0 to written - 1 are in the store copyStoreAt copies

  // Defect 1: the last manifest record (a flush's commit, after which the flush deleted its log
  // segment) is damaged; the record before it names that segment, now missing, and not the table.
  @Test
  void aDamagedLastManifestRecordWhoseCommitRetiredALogIsRefused() throws IOException {
    copyStoreAt("flush.afterLogDeleted");
    Path manifest = rewriteNewestManifest(bytes -> {
      bytes[bytes.length - 10] ^= 0x01;
      return bytes;
    });
    assertRefusedNamingAndUnchanged(manifest, "is missing while newer files");
  }

  @Test
  void aTruncatedManifestWhoseLostCommitRetiredALogIsRefused() throws IOException {
    copyStoreAt("flush.afterLogDeleted");
    Path manifest = rewriteNewestManifest(bytes -> Arrays.copyOf(bytes, bytes.length - 3));
    assertRefusedNamingAndUnchanged(manifest, "is missing while newer files");
  }

  // A genuine torn append: the commit had not returned, so the flushed log is still there and the
  // table above the previous snapshot's next_file_number is a leftover. Opening serves everything.
  @Test
  void aTornLastManifestRecordBeforeTheCommitReturnedStillOpens() throws IOException {
    copyStoreAt("flush.afterManifestCommit");
    rewriteNewestManifest(bytes -> Arrays.copyOf(bytes, bytes.length - 3));

    try (Engine engine = Engine.open(copy, EngineOptions.defaults())) {
      for (int i = 0; i < written; i++) assertValue(engine, i);
      assertThat(engine.health().damage()).isEmpty();
    }
  }

  // Defect 2: a flipped byte in the middle of a log segment is not a torn tail.
  @Test
  void aDamagedRecordInTheMiddleOfALogIsRefusedNamingOffsetAndFollowingRecords() throws IOException {
    writeKeysAndClose(dir);
    Path log = newest(dir, FileNames.Kind.LOG);
    byte[] bytes = Files.readAllBytes(log);
    int middle = bytes.length / 2;
    bytes[middle] ^= 0x10;
    Files.write(log, bytes);

    assertThatThrownBy(() -> Engine.open(dir, EngineOptions.defaults()))
        .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(log))
        .hasMessageContaining("valid records from offset")
        .hasMessageContaining("not a torn write")
        .hasMessageMatching("(?s).*at offset \\d+ followed by \\d+ valid records.*");
    assertThat(Files.readAllBytes(log)).isEqualTo(bytes);
    assertThat(newest(dir, FileNames.Kind.LOG)).isEqualTo(log);
  }

  @Test
  void aBadLastRecordInALogSegmentFollowedByOneWithRecordsIsRefused() throws IOException {
    writeKeysAndClose(dir);
    Path log = newest(dir, FileNames.Kind.LOG);
    byte[] bytes = Files.readAllBytes(log);
    bytes[bytes.length - 2] ^= 0x40; // the last record of the segment
    Files.write(log, bytes);
    long number = FileNames.parse(log.getFileName().toString()).orElseThrow().number();
    Path later = dir.resolve(FileNames.log(number + 50));
    try (LogWriter writer = LogWriter.create(Vfs.real(), later, number + 50)) {
      writer.append(List.of(new Entry(bytes("later"), 1L << 40, bytes("v"))));
      writer.force();
    }

    assertThatThrownBy(() -> Engine.open(dir, EngineOptions.defaults()))
        .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(log))
        .hasMessageContaining("a later log segment holds records");
    assertThat(Files.exists(later)).isTrue();
  }

  // Defect 7: a damaged filter block costs the filter, not the store.
  @Test
  void aTableWithADamagedFilterIsServedWithoutItAndReported() throws IOException {
    writeKeysAndClose(dir);
    EngineTesting.openAndFlushReplayedLogs(dir);
    Path table = newest(dir, FileNames.Kind.TABLE);
    byte[] bytes = Files.readAllBytes(table);
    ByteBuffer footer = ByteBuffer.wrap(bytes, bytes.length - 64, 64).slice().order(ByteOrder.LITTLE_ENDIAN);
    long filterOffset = footer.getLong(12);
    bytes[Math.toIntExact(filterOffset) + 9] ^= 0x01; // a bit of the filter's bits
    Files.write(table, bytes);

    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < KEYS; i++) assertValue(engine, i);
      assertThat(engine.get(bytes("absent"))).isNull();
      EngineHealth health = engine.health();
      assertThat(health.isDegraded()).isTrue();
      assertThat(health.damage()).singleElement().satisfies(d -> {
        assertThat(d.file()).isEqualTo(table);
        assertThat(d.problem()).contains("filter").contains("offset " + filterOffset);
      });
      // A compaction rewrites the table with a new filter: the damage is gone with it.
      engine.compact();
      assertThat(engine.health().damage()).isEmpty();
      for (int i = 0; i < KEYS; i++) assertValue(engine, i);
    }
  }

  /**
   * Writes keys into small memtables with flushes held back until one memtable is frozen, then lets the first flush run
   * and copies the directory when it reaches {@code crashPoint}: nothing else writes meanwhile.
   */
  private void copyStoreAt(String crashPoint) {
    AtomicBoolean armed = new AtomicBoolean(true);
    FlushGate gate = new FlushGate();
    Hooks hooks = new Hooks(gate, name -> {
      if (name.equals(crashPoint) && armed.get()) {
        EngineTesting.copyDirectory(dir, copy);
        armed.set(false);
      }
    }, gate);
    gate.hold();
    try (LsmEngine engine = LsmEngine.open(dir, EngineTesting.smallOptions(), hooks)) {
      while (engine.stats().immutableMemtables() == 0) engine.put(key(written), value(written++));
      for (int i = 0; i < 10; i++) engine.put(key(written), value(written++)); // into the next log
      gate.release();
      EngineTesting.await("crash point " + crashPoint, () -> !armed.get());
    }
  }

  /** Replaces the copy's newest manifest's bytes by {@code damage} of them; returns its path. */
  private Path rewriteNewestManifest(UnaryOperator<byte[]> damage) throws IOException {
    Path manifest = newest(copy, FileNames.Kind.MANIFEST);
    Files.write(manifest, damage.apply(Files.readAllBytes(manifest)));
    return manifest;
  }

  private void assertRefusedNamingAndUnchanged(Path file, String why) {
    List<String> before = storeFiles(copy);
    assertThatThrownBy(() -> Engine.open(copy, EngineOptions.defaults()))
        .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(file))
        .hasMessageContaining(why)
        .hasMessageContaining("nothing was deleted");
    assertThat(storeFiles(copy)).isEqualTo(before);
  }

  /** The store's files: all but LOCK, which opening creates. */
  private static List<String> storeFiles(Path directory) {
    return fileNames(directory).stream().filter(n -> !n.equals(FileNames.LOCK)).toList();
  }

  private static void writeKeysAndClose(Path directory) {
    try (Engine engine = Engine.open(directory, EngineOptions.defaults())) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), value(i));
    }
  }

  private static void assertValue(Engine engine, int i) {
    Entry found = engine.get(key(i));
    assertThat(found).as("key %d", i).isNotNull();
    assertThat(new String(found.value(), StandardCharsets.UTF_8)).isEqualTo("value-" + i);
  }

  private static byte[] key(int i) {
    return bytes("key-" + i);
  }

  private static byte[] value(int i) {
    return bytes("value-" + i);
  }
}
