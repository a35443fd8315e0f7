package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flipped bytes in a table or the manifest: clear errors, never wrong bytes, no lost data. */
class CompactionCorruptionTest {
  private static final int KEYS = 3_000;

  @TempDir Path dir;

  @Test
  void aCorruptBlockFailsItsReadsAndEveryCompactionTouchingItButNothingElse() throws IOException {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      for (int i = 0; i < KEYS; i++) engine.put(key("a", i), value(i));
      engine.compact();
    }
    Path damaged = EngineTesting.newest(dir, FileNames.Kind.TABLE);
    flipByte(damaged, 100); // inside its first data block

    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      List<Integer> unreadable = readAll(engine, damaged);
      assertThat(unreadable).as("keys of the damaged block").isNotEmpty().hasSizeLessThan(KEYS / 10);

      for (int i = 0; i < KEYS; i++) engine.put(key("b", i), value(i));
      assertThatThrownBy(engine::compact).isInstanceOf(CorruptionException.class)
          .hasMessageContaining(damaged.getFileName().toString());
      // Quarantined now: a second call fails at once, naming it, instead of trying again.
      assertThatThrownBy(engine::compact).isInstanceOf(CorruptionException.class)
          .hasMessageContaining(damaged.getFileName().toString());
      assertThat(engine.stats().compactionFailures()).isPositive();

      // Background compaction goes on around the bad table.
      long before = engine.stats().compactions();
      for (int i = 0; i < KEYS; i++) engine.put(key("c", i), value(i));
      EngineTesting.await("more compactions", () -> engine.stats().compactions() > before);
      for (int i = 0; i < KEYS; i++) {
        assertThat(engine.get(key("b", i)).value()).isEqualTo(value(i));
        assertThat(engine.get(key("c", i)).value()).isEqualTo(value(i));
      }
      assertThat(readAll(engine, damaged)).isEqualTo(unreadable);
    }
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      for (int i = 0; i < KEYS; i += 7) assertThat(engine.get(key("b", i)).value()).isEqualTo(value(i));
    }
  }

  // Issue 12, defect 3: a damaged table in the base level overlapping every flush used to block
  // every L0 compaction, so level 0 grew to the stop trigger and writes stalled for good.
  @Test
  void aDamagedTableBelowLevel0IsSetAsideAndWritesNeverStallOnIt() throws IOException {
    // A base of 64 MiB: this store stays in the last level, its base (LevelTargets).
    EngineOptions options = options().withLevelSizes(64 << 20, 16 << 10)
        .withWriteStallTimeoutMillis(2_000);
    Path damaged;
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      writeRound(engine, 0);
      EngineTesting.await("tables in the last level", () -> level(engine, Levels.LAST).size() >= 3);
      damaged = level(engine, Levels.LAST).get(1).path();
    }
    flipByte(damaged, 100); // its first data block

    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      // Each round overwrites every key, across the damaged table's range: some 5 flushes.
      for (int round = 1; round <= 4; round++) writeRound(engine, round);
      EngineTesting.await("the damage reported", () -> !engine.health().damage().isEmpty());
      assertThat(engine.health().damage()).singleElement().satisfies(d -> {
        assertThat(d.file()).isEqualTo(damaged);
        assertThat(d.problem()).contains("offset");
      });
      assertThat(engine.health().isDegraded()).isTrue();
      EngineTesting.await("level 0 compacted around the damaged table",
          () -> engine.currentView().levels().level0Backlog().size() < 2);
      assertThat(level(engine, 0)).extracting(SharedTable::path).contains(damaged);
      assertThat(level(engine, Levels.LAST)).extracting(SharedTable::path).doesNotContain(damaged);
      for (int i = 0; i < KEYS; i++) assertThat(engine.get(key("k", i)).value()).isEqualTo(value(4, i));
    }
    // After a restart the damage is found again by the first compaction to read it; writes go on.
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      for (int round = 5; round <= 8; round++) writeRound(engine, round);
      EngineTesting.await("the damage found again", () -> !engine.health().damage().isEmpty());
      EngineTesting.await("level 0 compacted around the damaged table",
          () -> engine.currentView().levels().level0Backlog().size() < 2);
      for (int i = 0; i < KEYS; i++) assertThat(engine.get(key("k", i)).value()).isEqualTo(value(8, i));
    }
  }

  @Test
  void aFlippedByteInTheManifestsLastRecordFailsOpenNamingWhatIsMissing() throws IOException {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      for (int i = 0; i < KEYS; i++) engine.put(key("a", i), value(i));
      engine.compact(); // the last record: the compaction's, replacing the flushed tables
    }
    List<String> before = EngineTesting.fileNames(dir);
    Path manifest = EngineTesting.newest(dir, FileNames.Kind.MANIFEST);
    flipByte(manifest, manifest.toFile().length() - 8);

    // docs/format.md, "Manifest": the record fails its crc, so the one before it is the state;
    // that one names tables the compaction deleted, so open fails naming one, and deletes nothing.
    assertThatThrownBy(() -> LsmEngine.open(dir, options(), Hooks.none()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(".sst")
        .hasMessageContaining("missing");
    assertThat(EngineTesting.fileNames(dir)).containsAll(
        before.stream().filter(n -> !n.equals("LOCK")).toList());
  }

  // Reads every "a" key: a value it returns is the right one; the keys whose reads fail are
  // returned, and each failure names the damaged file.
  private static List<Integer> readAll(LsmEngine engine, Path damaged) {
    List<Integer> unreadable = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      try {
        Entry e = engine.get(key("a", i));
        assertThat(e.value()).isEqualTo(value(i));
      } catch (CorruptionException e) {
        assertThat(e.file()).isEqualTo(damaged);
        unreadable.add(i);
      }
    }
    return unreadable;
  }

  // Writes every key once, in an order spread over the whole key range.
  private static void writeRound(LsmEngine engine, int round) {
    for (int n = 0; n < KEYS; n++) {
      int i = (int) ((n * 7919L) % KEYS);
      engine.put(key("k", i), value(round, i));
    }
  }

  private static List<SharedTable> level(LsmEngine engine, int level) {
    return engine.currentView().levels().level(level);
  }

  private static byte[] value(int round, int i) {
    return bytes("round-" + round + "-value-" + i + "-" + "v".repeat(80));
  }

  private static void flipByte(Path file, long offset) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      channel.read(b, offset);
      b.flip();
      byte flipped = (byte) (b.get(0) ^ 0x5A);
      channel.write(ByteBuffer.wrap(new byte[] {flipped}), offset);
      channel.force(true);
    }
  }

  private static EngineOptions options() {
    return EngineTesting.smallOptions()
        .withBlockSizeBytes(1024)
        .withL0Triggers(2, 6, 10)
        .withLevelSizes(128 << 10, 32 << 10);
  }

  private static byte[] key(String prefix, int i) {
    return bytes(prefix + "-%05d".formatted(i));
  }

  private static byte[] value(int i) {
    return bytes("value-" + i + "-" + "v".repeat(80));
  }
}
