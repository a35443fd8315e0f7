package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/** Helpers shared by the engine's tests. */
final class EngineTesting {
  static final long WAIT_MILLIS = 30_000;

  private EngineTesting() {}

  /** Small memtables, so that flushes happen after a few hundred writes. */
  static EngineOptions smallOptions() {
    return EngineOptions.defaults()
        .withMemtableSizeBytes(64 << 10)
        .withWriteStallTimeoutMillis(60_000);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Waits for {@code condition}, polling, up to {@link #WAIT_MILLIS}; fails naming it. */
  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }

  /**
   * Opens the store in {@code directory}, waits until the flush thread has written the log
   * segments that open replayed into tables (open itself writes none), and closes it.
   */
  static void openAndFlushReplayedLogs(Path directory) {
    try (Engine engine = Engine.open(directory, EngineOptions.defaults())) {
      await("the replayed logs flushed", () -> engine.stats().immutableMemtables() == 0);
    }
  }

  /** Copies the files of {@code from} (not LOCK) into the new directory {@code to}. */
  static void copyDirectory(Path from, Path to) {
    try (Stream<Path> files = Files.list(from)) {
      Files.createDirectories(to);
      for (Path file : files.toList()) {
        if (file.getFileName().toString().equals(FileNames.LOCK)) continue;
        try {
          Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
        } catch (NoSuchFileException deletedMeanwhile) {
          // Deleted by the engine while listing: not part of the state being copied.
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> fileNames(Path directory) {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The highest-numbered file of {@code kind} in {@code directory}. */
  static Path newest(Path directory, FileNames.Kind kind) {
    return fileNames(directory).stream()
        .filter(n -> FileNames.parse(n).map(p -> p.kind() == kind).orElse(false))
        .map(directory::resolve)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no " + kind + " file in " + directory));
  }

  /** Everything {@code iterator} returns, after which it is closed. */
  static List<Entry> drain(EntryIterator iterator) {
    try (iterator) {
      List<Entry> out = new ArrayList<>();
      iterator.forEachRemaining(out::add);
      return out;
    }
  }

  /** The model of a store: per key, the record Entry.newer picks. */
  static final class Model {
    private final NavigableMap<byte[], Entry> records = new TreeMap<>(Keys.ORDER);

    void apply(Entry entry) {
      records.merge(entry.key(), entry, Entry::newer);
    }

    Entry get(byte[] key) {
      return records.get(key);
    }

    int size() {
      return records.size();
    }

    /** What a scan of {@code [start, end)} must return (end null: to the last key). */
    List<Entry> scan(byte[] start, byte[] end, boolean includeTombstones) {
      NavigableMap<byte[], Entry> range = end == null
          ? records.tailMap(start, true)
          : Keys.compare(end, start) <= 0 ? new TreeMap<>(Keys.ORDER) : records.subMap(start, true, end, false);
      return range.values().stream().filter(e -> includeTombstones || !e.isTombstone()).toList();
    }

    /**
     * Asserts that {@code engine} holds exactly this model's records (and no other key probed).
     * A tombstone may be missing instead: compaction purges tombstones past their grace period,
     * and a missing key reads as deleted just the same. A value never may.
     */
    void assertHeldBy(Engine engine, String context) {
      for (Map.Entry<byte[], Entry> e : records.entrySet()) {
        Entry found = engine.get(e.getKey());
        if (found == null && e.getValue().isTombstone()) continue;
        assertThat(found).as("%s: key %s", context, Keys.toDisplay(e.getKey()))
            .isEqualTo(e.getValue());
      }
    }
  }
}
