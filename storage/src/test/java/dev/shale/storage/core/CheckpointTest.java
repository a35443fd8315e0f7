package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Checkpoint;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.StorageException;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Engine#checkpoint}: a directory that opens as the store of one moment. */
class CheckpointTest {
  @TempDir Path dir;

  /**
   * Seeded puts, overwrites and deletes, spread over several flushed tables and the memtable;
   * a checkpoint; more writes and a full compaction (which deletes the store's names of the
   * linked tables); then the checkpoint, copied, opens holding exactly the records of its moment,
   * and the store itself reopens with the checkpoint beside its files.
   */
  @Test
  void aCheckpointOpensAsTheStoreOfItsMoment() throws IOException {
    long seed = TestSeed.forTest("aCheckpointOpensAsTheStoreOfItsMoment");
    Random random = new Random(seed);
    Path store = dir.resolve("store");
    Path target = store.resolve("snapshots").resolve("first");
    EngineOptions options = EngineTesting.smallOptions();
    Map<String, String> atCheckpoint = new TreeMap<>();
    try (Engine engine = Engine.open(store, options)) {
      for (int i = 0; i < 3_000; i++) {
        String key = "k" + random.nextInt(800);
        if (random.nextInt(5) == 0) {
          engine.delete(bytes(key));
          atCheckpoint.remove(key);
        } else {
          String value = "v" + i + "-" + "x".repeat(random.nextInt(200));
          engine.put(bytes(key), bytes(value));
          atCheckpoint.put(key, value);
        }
      }
      assertThat(engine.stats().flushes()).as("seed %d: the load flushed tables", seed).isPositive();
      Checkpoint checkpoint = engine.checkpoint(target);
      assertThat(checkpoint.path()).isEqualTo(target);
      assertThat(checkpoint.tables()).isPositive();
      assertThat(checkpoint.bytes()).isPositive();
      assertThatThrownBy(() -> engine.checkpoint(target)).isInstanceOf(StorageException.class).hasMessageContaining("exists");

      for (int i = 0; i < 800; i++) engine.put(bytes("k" + i), bytes("later"));
      engine.put(bytes("only-later"), bytes("later"));
      engine.compact();
    }
    assertThat(Files.list(target.getParent()).map(p -> p.getFileName().toString()))
        .as("no partial directory is left").containsExactly("first");

    Path copy = dir.resolve("copy");
    copyTree(target, copy);
    try (Engine restored = Engine.open(copy, EngineOptions.defaults())) {
      assertThat(live(restored)).as("seed %d", seed).isEqualTo(atCheckpoint);
    }
    try (Engine reopened = Engine.open(store, options)) {
      assertThat(reopened.get(bytes("only-later"))).isNotNull();
    }
    try (Engine restoredInPlace = Engine.open(target, EngineOptions.defaults())) {
      assertThat(live(restoredInPlace)).as("seed %d", seed).isEqualTo(atCheckpoint);
    }
  }

  @Test
  void anEmptyStoreCheckpointsToAnEmptyStore() {
    Path target = dir.resolve("empty-checkpoint");
    try (Engine engine = Engine.open(dir.resolve("store"), EngineOptions.defaults())) {
      assertThat(engine.checkpoint(target).tables()).isZero();
    }
    try (Engine restored = Engine.open(target, EngineOptions.defaults())) {
      assertThat(live(restored)).isEmpty();
    }
  }

  private static Map<String, String> live(Engine engine) {
    Map<String, String> records = new TreeMap<>();
    try (EntryIterator it = engine.scan(new byte[0], null, false)) {
      while (it.hasNext()) {
        Entry e = it.next();
        records.put(new String(e.key(), StandardCharsets.UTF_8), new String(e.value(), StandardCharsets.UTF_8));
      }
    }
    return records;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) Files.copy(f, to.resolve(f.getFileName()));
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
