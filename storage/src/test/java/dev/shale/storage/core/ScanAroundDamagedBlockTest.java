package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, defect 7: a scan whose range ends before a damaged block returned all but its last
 * batch, then failed. Only a read that needs the damaged block may fail (docs/format.md, "Damage
 * found at open", "Index"): a range that ends at or before the block's first key never reads it,
 * while a range that reaches into it, a get of its keys and a compaction still fail naming the
 * table. A real store, written through the engine; the damage is one byte rewritten on disk.
 */
class ScanAroundDamagedBlockTest {
  // Even-numbered keys only: between two blocks lies an odd-numbered key no block holds.
  private static final int KEYS = 20_000;

  @TempDir Path dir;
  private Path damaged;
  private int firstDamaged; // the index (key / 2) of the first key of the damaged block
  private int lastDamaged;

  @BeforeEach
  void writeStoreAndDamageABlockInTheMiddleOfItsLargestTable() throws IOException {
    try (Engine engine = Engine.open(dir, options())) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), value(i));
      engine.compact(); // every record in tables
    }
    damaged = largestTable();
    flipByte(damaged, dataEnd(damaged) / 2);
    List<Integer> unreadable = new ArrayList<>();
    try (Engine engine = Engine.open(dir, options())) {
      for (int i = 0; i < KEYS; i++) {
        try {
          assertThat(engine.get(key(i)).value()).isEqualTo(value(i));
        } catch (CorruptionException e) {
          assertThat(e.file()).isEqualTo(damaged);
          unreadable.add(i);
        }
      }
    }
    assertThat(unreadable).as("the keys of the damaged block").isNotEmpty();
    firstDamaged = unreadable.getFirst();
    lastDamaged = unreadable.getLast();
    assertThat(unreadable).as("one block: a run of keys").isEqualTo(IntStream.rangeClosed(firstDamaged, lastDamaged).boxed().toList());
    assertThat(firstDamaged).as("a block with blocks before it").isPositive();
    assertThat(lastDamaged).as("a block with blocks after it").isLessThan(KEYS - 1);
  }

  @Test
  void aScanEndingAtTheDamagedBlocksFirstKeyReturnsItsWholeRange() {
    try (Engine engine = Engine.open(dir, options())) {
      assertThat(keysOf(engine.scan(key(0), key(firstDamaged), false))).isEqualTo(indices(0, firstDamaged));
    }
  }

  @Test
  void aScanEndingBetweenTheBlockBeforeAndTheDamagedOneReturnsItsWholeRange() {
    try (Engine engine = Engine.open(dir, options())) {
      assertThat(keysOf(engine.scan(key(0), keyBelow(firstDamaged), false))).isEqualTo(indices(0, firstDamaged));
      assertThat(keysOf(engine.scan(keyBelow(firstDamaged), key(firstDamaged), false))).isEmpty();
    }
  }

  @Test
  void aScanStartingPastTheDamagedBlockReturnsItsWholeRange() {
    try (Engine engine = Engine.open(dir, options())) {
      assertThat(keysOf(engine.scan(keyBelow(lastDamaged + 1), null, false))).isEqualTo(indices(lastDamaged + 1, KEYS));
    }
  }

  @Test
  void readsThatNeedTheDamagedBlockFailNamingTheTableAndCompactionsStillDo() {
    try (Engine engine = Engine.open(dir, options())) {
      assertThatThrownBy(() -> keysOf(engine.scan(key(0), null, false)))
          .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(damaged));
      assertThatThrownBy(() -> keysOf(engine.scan(keyBelow(firstDamaged), key(firstDamaged + 1), false)))
          .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(damaged));
      assertThatThrownBy(() -> engine.get(key(lastDamaged)))
          .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(damaged));
      assertThatThrownBy(engine::compact)
          .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(damaged));
    }
  }

  // Blocks of 4 KiB hold about 30 records; one table holds all of them (~2.5 MB).
  private static EngineOptions options() {
    return EngineOptions.defaults().withLevelSizes(64 << 20, 64 << 20);
  }

  private Path largestTable() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".sst"))
          .max(Comparator.comparingLong(f -> f.toFile().length()))
          .orElseThrow(() -> new AssertionError("no table in " + dir));
    }
  }

  // Where the data blocks end: filter_offset, in the footer's last 64 bytes (docs/format.md,
  // "Footer"; the same place in every format version).
  private static long dataEnd(Path table) throws IOException {
    byte[] bytes = Files.readAllBytes(table);
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(bytes.length - 64 + 12);
  }

  private static void flipByte(Path file, long offset) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      channel.read(b, offset);
      channel.write(ByteBuffer.wrap(new byte[] {(byte) (b.get(0) ^ 0x5A)}), offset);
      channel.force(true);
    }
  }

  // The indices of the keys a scan returned, each value checked; the scan is closed.
  private static List<Integer> keysOf(EntryIterator scan) {
    List<Integer> indices = new ArrayList<>();
    for (Entry e : EngineTesting.drain(scan)) {
      int i = Integer.parseInt(new String(e.key(), StandardCharsets.UTF_8).substring("key-".length())) / 2;
      assertThat(e.value()).as("value of key %d", i).isEqualTo(value(i));
      indices.add(i);
    }
    return indices;
  }

  private static List<Integer> indices(int fromInclusive, int toExclusive) {
    return IntStream.range(fromInclusive, toExclusive).boxed().toList();
  }

  private static byte[] key(int i) {
    return bytes("key-%06d".formatted(2 * i));
  }

  // The odd-numbered key just below key(i): above key(i - 1), in no block.
  private static byte[] keyBelow(int i) {
    return bytes("key-%06d".formatted(2 * i - 1));
  }

  private static byte[] value(int i) {
    return bytes("value-" + i + "-" + "v".repeat(90));
  }
}
