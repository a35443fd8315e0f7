package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.fileNames;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.table.TableWriter;
import dev.shale.storage.wal.LogReader;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded damage to every file kind of a real store filled through the engine (issue 12): a byte
 * flipped, a range zeroed or a truncation, at a random place of a MANIFEST, a log segment, or a
 * table's data block, filter, index or footer. Each case either opens and serves only what a model
 * of the writes says (a torn log tail counting as the loss of the newest writes, a damaged data
 * block as a CorruptionException naming the table), or refuses to open naming the damaged file and
 * deleting nothing; never a silent loss, never a wrong value. The fixed members (issue 12's defects
 * 1, 2 and 7) are in {@link DamagedStoreTest}. Replay a run with {@code -Dshale.seed=N}.
 *
 * <p>Issue 31 added damage that framing cannot see, where nothing may be lost: a manifest record
 * with a valid crc whose snapshot is inconsistent (a level out of range, a key or version range
 * upside down, tables moved to a level where they may overlap, a lowered next_file_number or
 * last_version), a table listed twice, and a missing log segment (removed, or skipped by
 * log_number), drawn from a store whose last writes wait for their flush in three segments; and,
 * since manifest format_version 2 lists those segments, a list the engine never writes. A
 * refusal leaves every file byte for byte as it was.
 */
class SeededCorruptionTest {
  private static final int CASES = 60;
  private static final int KEYS = 400;
  private static final int OPERATIONS = 3_000;

  @TempDir Path base;
  @TempDir Path work;

  /** One write: a key and its value, or null for a delete. */
  private record Operation(String key, byte[] value) {}

  private enum Kind {
    MANIFEST, LOG, TABLE_DATA, TABLE_FILTER, TABLE_INDEX, TABLE_FOOTER, TABLE_SWAPPED,
    MANIFEST_INCONSISTENT, TABLE_LISTED_TWICE, LOG_SEGMENT_MISSING, SEGMENT_LIST_INCONSISTENT
  }

  @TempDir Path baseAwaitingFlushes;

  @Test
  void everyDamagedFileEitherOpensServingOnlyCorrectDataOrIsRefusedByName() throws IOException {
    long seed = TestSeed.forTest("SeededCorruptionTest");
    Random random = new Random(seed);
    List<Operation> operations = fill(base, random, false);
    // Its own generator: how many writes fill two memtables varies with their freeze points, and
    // the cases drawn from `random` must not.
    List<Operation> awaitingOperations = fill(baseAwaitingFlushes, new Random(~seed), true);
    int recordsInLogs = countLogRecords(base, Integer.MAX_VALUE);
    for (int c = 0; c < CASES; c++) {
      Path dir = work.resolve("case-" + c);
      Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
      boolean awaiting = awaitsFlushes(kind);
      EngineTesting.copyDirectory(awaiting ? baseAwaitingFlushes : base, dir);
      String damage = damage(dir, kind, random);
      String what = "seed " + seed + ", case " + c + ": " + damage;
      List<Operation> written = awaiting ? awaitingOperations : operations;
      int survivors = keepsEveryWrite(kind)
          ? written.size()
          : written.size() - recordsInLogs + countLogRecords(dir, 0);
      checkOpen(dir, damage, kind, model(written, survivors), what);
    }
  }

  /**
   * Fills {@code store} through the engine; with {@code leaveFrozen}, flushes are then held while
   * more writes fill two memtables and some of a third, so that three log segments hold writes in
   * no table when it closes (the segments a removed one may be any of).
   */
  private List<Operation> fill(Path store, Random random, boolean leaveFrozen) {
    List<Operation> operations = new ArrayList<>();
    FlushGate gate = new FlushGate();
    EngineOptions options = EngineTesting.smallOptions().withMaxImmutableMemtables(4);
    try (LsmEngine engine = LsmEngine.open(store, options, Hooks.withGate(gate))) {
      for (int i = 0; i < OPERATIONS; i++) operations.add(write(engine, random));
      // Every kind of file must be there to damage: the frozen memtables in tables, the active
      // one in its log. A flush still running at close would be abandoned, and its table with it.
      EngineTesting.await("the fill's flushes", () -> engine.stats().immutableMemtables() == 0);
      assertThat(engine.stats().tables()).as("tables after the fill").isPositive();
      if (leaveFrozen) {
        gate.hold();
        while (engine.stats().immutableMemtables() < 2) operations.add(write(engine, random));
        for (int i = 0; i < 20; i++) operations.add(write(engine, random));
      }
    }
    return operations;
  }

  private static Operation write(Engine engine, Random random) {
    String key = "key-" + random.nextInt(KEYS);
    if (random.nextInt(10) == 0) {
      engine.delete(bytes(key));
      return new Operation(key, null);
    }
    byte[] value = new byte[1 + random.nextInt(60)];
    random.nextBytes(value);
    engine.put(bytes(key), value);
    return new Operation(key, value);
  }

  // Damage to the segments that must be on disk needs more than the one live segment.
  private static boolean awaitsFlushes(Kind kind) {
    return kind == Kind.LOG_SEGMENT_MISSING || kind == Kind.SEGMENT_LIST_INCONSISTENT;
  }

  /** The state after the first {@code count} operations. */
  private static Map<String, byte[]> model(List<Operation> operations, int count) {
    Map<String, byte[]> state = new HashMap<>();
    for (Operation op : operations.subList(0, count)) state.put(op.key(), op.value());
    return state;
  }

  /**
   * Records readable from the log segments in order, up to the first bad record (all of them if
   * {@code limitAfterDamage} is large): the writes a torn tail leaves, when the store opens.
   */
  private static int countLogRecords(Path dir, int limitAfterDamage) throws IOException {
    int records = 0;
    for (String name : fileNames(dir)) {
      if (!name.endsWith(".wal")) continue;
      try (LogReader reader = LogReader.open(Vfs.real(), dir.resolve(name))) {
        while (reader.next() != null) records++;
        if (reader.tornTail() != null && limitAfterDamage == 0) return records;
      } catch (StorageException e) {
        return records; // a header of another kind: such a store must be refused anyway
      }
    }
    return records;
  }

  private void checkOpen(Path dir, String damaged, Kind kind, Map<String, byte[]> expected,
      String what) {
    List<String> before = storeFiles(dir);
    Engine engine;
    try {
      engine = Engine.open(dir, EngineOptions.defaults());
    } catch (StorageException refused) {
      String message = String.valueOf(refused.getMessage());
      assertThat(message.contains(damaged) || (kind == Kind.MANIFEST && message.contains("MANIFEST-")))
          .as("%s: the refusal names the damaged file: %s", what, message).isTrue();
      assertThat(storeFiles(dir)).as("%s: a refused open changes nothing", what).isEqualTo(before);
      return;
    }
    try (engine) {
      for (int k = 0; k < KEYS; k++) {
        String key = "key-" + k;
        Entry found;
        try {
          found = engine.get(bytes(key));
        } catch (CorruptionException e) {
          assertThat(e.getMessage()).as("%s: %s", what, key).contains(damaged);
          continue;
        }
        byte[] value = expected.get(key);
        if (value == null) {
          // Absent or deleted; a tombstone may be gone (compacted away) or still there.
          assertThat(found == null || found.isTombstone()).as("%s: %s resurfaced", what, key).isTrue();
        } else {
          assertThat(found).as("%s: %s is lost", what, key).isNotNull();
          assertThat(found.value()).as("%s: %s", what, key).isEqualTo(value);
        }
      }
      if (keepsEveryWrite(kind)) compactsCleanly(engine, dir, expected, what);
    }
  }

  /**
   * A store opened despite damage framing cannot see must also compact: a snapshot the engine
   * accepted but cannot work with (a table listed twice) served reads and failed every
   * compaction, leaving its outputs on disk. Compacted, it holds only its live tables, and the
   * same data.
   */
  private static void compactsCleanly(Engine engine, Path dir, Map<String, byte[]> expected, String what) {
    engine.compact();
    long tableFiles = fileNames(dir).stream().filter(n -> n.endsWith(".sst")).count();
    assertThat(tableFiles).as("%s: table files after compact()", what).isEqualTo(engine.stats().tables());
    for (int k = 0; k < KEYS; k++) {
      String key = "key-" + k;
      Entry found = engine.get(bytes(key));
      byte[] value = expected.get(key);
      if (value == null) {
        assertThat(found == null || found.isTombstone()).as("%s: %s resurfaced after compact()", what, key).isTrue();
      } else {
        assertThat(found).as("%s: %s is lost after compact()", what, key).isNotNull();
        assertThat(found.value()).as("%s: %s after compact()", what, key).isEqualTo(value);
      }
    }
  }

  /** Damages one file of {@code kind}; returns its name. */
  private static String damage(Path dir, Kind kind, Random random) throws IOException {
    if (kind == Kind.TABLE_SWAPPED) return copyATableOverAnother(dir, random);
    if (kind == Kind.MANIFEST_INCONSISTENT) return inconsistentManifest(dir, random);
    if (kind == Kind.TABLE_LISTED_TWICE) return tableListedTwice(dir, random);
    if (kind == Kind.LOG_SEGMENT_MISSING) return logSegmentMissing(dir, random);
    if (kind == Kind.SEGMENT_LIST_INCONSISTENT) return segmentListInconsistent(dir, random);
    String suffix = switch (kind) {
      case MANIFEST -> "MANIFEST-";
      case LOG -> ".wal";
      default -> ".sst";
    };
    List<String> candidates =
        fileNames(dir).stream().filter(n -> n.contains(suffix)).toList();
    String name = candidates.get(random.nextInt(candidates.size()));
    Path file = dir.resolve(name);
    byte[] bytes = Files.readAllBytes(file);
    long[] region = region(bytes, kind);
    int at = (int) (region[0] + random.nextLong(region[1] - region[0]));
    switch (random.nextInt(3)) {
      case 0 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
      case 1 -> Arrays.fill(bytes, at, Math.min(bytes.length, at + 1 + random.nextInt(64)), (byte) 0);
      default -> bytes = Arrays.copyOf(bytes, at);
    }
    Files.write(file, bytes);
    return name;
  }

  /**
   * Issue 31, defect 5: a valid table in another's place, which opening must refuse by name;
   * returns the name of the one replaced. Either another table of the store copied over it
   * ({@code cp 000044.sst 000041.sst}), or (also when the store has one table) a table of the same
   * number from elsewhere: other records, written by the table writer.
   */
  private static String copyATableOverAnother(Path dir, Random random) throws IOException {
    List<String> tables = fileNames(dir).stream().filter(n -> n.endsWith(".sst")).toList();
    int replaced = random.nextInt(tables.size());
    Path target = dir.resolve(tables.get(replaced));
    if (tables.size() > 1 && random.nextBoolean()) {
      int source = (replaced + 1 + random.nextInt(tables.size() - 1)) % tables.size();
      Files.copy(dir.resolve(tables.get(source)), target, StandardCopyOption.REPLACE_EXISTING);
    } else {
      long number = FileNames.parse(tables.get(replaced)).orElseThrow().number();
      List<Entry> records = new ArrayList<>();
      for (int k = 0; k < 1 + random.nextInt(KEYS); k++) records.add(new Entry(bytes("key-" + k), 1 + k, bytes("other")));
      records.sort((a, b) -> Keys.compare(a.key(), b.key()));
      Files.delete(target);
      TableWriter.write(Vfs.real(), target, number, records.iterator(), 4096, 10);
    }
    return tables.get(replaced);
  }

  // [from, to) of the part of the file to damage: a table's region found through its footer.
  private static long[] region(byte[] bytes, Kind kind) {
    if (kind == Kind.MANIFEST || kind == Kind.LOG) return new long[] {0, bytes.length};
    int footerStart = bytes.length - 64;
    ByteBuffer footer = ByteBuffer.wrap(bytes, footerStart, 64).slice().order(ByteOrder.LITTLE_ENDIAN);
    long indexOffset = footer.getLong(0);
    long filterOffset = footer.getLong(12);
    return switch (kind) {
      case MANIFEST, LOG, TABLE_SWAPPED -> throw new AssertionError(kind);
      case MANIFEST_INCONSISTENT, TABLE_LISTED_TWICE, LOG_SEGMENT_MISSING, SEGMENT_LIST_INCONSISTENT ->
          throw new AssertionError(kind);
      case TABLE_DATA -> new long[] {0, filterOffset};
      case TABLE_FILTER -> filterOffset < indexOffset
          ? new long[] {filterOffset, indexOffset}
          : new long[] {0, filterOffset};
      case TABLE_INDEX -> new long[] {indexOffset, footerStart};
      case TABLE_FOOTER -> new long[] {footerStart, bytes.length};
    };
  }

  // Damage framing cannot see, where the store loses no write: it serves every one or refuses.
  private static boolean keepsEveryWrite(Kind kind) {
    return kind == Kind.MANIFEST_INCONSISTENT || kind == Kind.TABLE_LISTED_TWICE
        || kind == Kind.LOG_SEGMENT_MISSING || kind == Kind.SEGMENT_LIST_INCONSISTENT;
  }

  /**
   * Rewrites the newest manifest snapshot, with a valid crc, into one the engine never writes;
   * returns the manifest's name. Some changes must be refused (a level out of range, a range
   * upside down), the others served exactly (tables moved to a deeper level where they do not
   * overlap, a lowered next_file_number or last_version, which opening raises from the files).
   */
  private static String inconsistentManifest(Path dir, Random random) throws IOException {
    int change = random.nextInt(6);
    Path manifest = ManifestEdits.rewrite(dir, s -> {
      List<TableMeta> tables = new ArrayList<>(s.tables());
      int i = random.nextInt(tables.size());
      TableMeta t = tables.get(i);
      switch (change) {
        case 0 -> tables.set(i, t.withLevel(random.nextBoolean() ? 7 + random.nextInt(100) : -1 - random.nextInt(5)));
        case 1 -> tables.set(i, ManifestEdits.upsideDown(t));
        case 2 -> tables.set(i, new TableMeta(t.fileNumber(), t.level(), t.fileSizeBytes(),
            t.entryCount(), t.maxVersion() + 1 + random.nextInt(1_000), t.maxVersion(),
            t.smallestKey(), t.largestKey()));
        case 3 -> {
          int level = 1 + random.nextInt(6);
          for (int moved = 0; moved < 2; moved++) {
            int j = random.nextInt(tables.size());
            tables.set(j, tables.get(j).withLevel(level));
          }
        }
        case 4 -> {
          return new ManifestSnapshot(random.nextLong(manifestNumber(dir) + 1, s.nextFileNumber() + 1),
              s.logNumber(), s.lastVersion(), tables, s.segments());
        }
        default -> {
          return new ManifestSnapshot(s.nextFileNumber(), s.logNumber(), random.nextLong(s.lastVersion() + 1),
              tables, s.segments());
        }
      }
      return ManifestEdits.withTables(s, tables);
    });
    return manifest.getFileName().toString();
  }

  /** One table of the newest snapshot listed a second time, at some level; returns the manifest's name. */
  private static String tableListedTwice(Path dir, Random random) throws IOException {
    Path manifest = ManifestEdits.rewrite(dir, s -> {
      List<TableMeta> tables = new ArrayList<>(s.tables());
      TableMeta twice = tables.get(random.nextInt(tables.size()));
      tables.add(random.nextInt(tables.size() + 1), twice.withLevel(random.nextInt(7)));
      return ManifestEdits.withTables(s, tables);
    });
    return manifest.getFileName().toString();
  }

  /**
   * A log segment holding writes that are in no table removed, or skipped by a log_number moved
   * past it; returns the name of the segment the manifest names and the directory lacks.
   */
  private static String logSegmentMissing(Path dir, Random random) throws IOException {
    List<String> segments = fileNames(dir).stream().filter(n -> n.endsWith(".wal")).toList();
    if (random.nextBoolean()) {
      String removed = segments.get(random.nextInt(segments.size()));
      Files.delete(dir.resolve(removed));
      return removed;
    }
    ManifestSnapshot snapshot = ManifestEdits.snapshot(dir);
    long past = snapshot.logNumber() + 1 + random.nextInt((int) (snapshot.nextFileNumber() - snapshot.logNumber() + 4));
    ManifestEdits.rewrite(dir, s -> ManifestEdits.withLogNumber(s, past));
    return FileNames.log(past);
  }

  /**
   * Rewrites the newest snapshot's list of the segments that must be on disk (manifest
   * format_version 2) into one the engine never writes; returns the manifest's name. Served
   * exactly: a segment left out of the list while its file stays (replayed all the same).
   * Refused: a listed segment that is not there, a log_number that is not the first listed
   * segment, and the oldest segment skipped by both while a record in it is newer than the
   * snapshot's last_version (as a manifest from before that record would have it).
   */
  private static String segmentListInconsistent(Path dir, Random random) throws IOException {
    List<Long> segments = ManifestEdits.snapshot(dir).segments();
    assertThat(segments).as("segments listed by the store awaiting its flushes").hasSizeGreaterThan(1);
    int change = random.nextInt(4);
    Path manifest = ManifestEdits.rewrite(dir, s -> switch (change) {
      case 0 -> {
        List<Long> fewer = new ArrayList<>(segments);
        fewer.remove(1 + random.nextInt(segments.size() - 1));
        yield ManifestEdits.withSegments(s, fewer);
      }
      case 1 -> {
        List<Long> more = new ArrayList<>(segments);
        long absent = s.nextFileNumber() + random.nextInt(4); // no file has a number this high
        more.add(absent);
        yield ManifestEdits.withSegments(s.withNextFileNumber(absent + 1), more);
      }
      case 2 -> ManifestEdits.withLogNumber(s, segments.get(1 + random.nextInt(segments.size() - 1)));
      default -> {
        ManifestSnapshot skipped = ManifestEdits.withSegments(s, segments.subList(1, segments.size()));
        long newest = newestVersion(dir.resolve(FileNames.log(segments.getFirst())));
        yield new ManifestSnapshot(skipped.nextFileNumber(), skipped.logNumber(), random.nextLong(newest),
            skipped.tables(), skipped.segments());
      }
    });
    return manifest.getFileName().toString();
  }

  private static long newestVersion(Path segment) {
    long newest = 0;
    try (LogReader reader = LogReader.open(Vfs.real(), segment)) {
      for (Entry e = reader.next(); e != null; e = reader.next()) newest = Math.max(newest, e.version());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return newest;
  }

  private static long manifestNumber(Path dir) {
    return fileNames(dir).stream()
        .map(FileNames::parse)
        .flatMap(Optional::stream)
        .filter(p -> p.kind() == FileNames.Kind.MANIFEST)
        .mapToLong(FileNames.Parsed::number)
        .max()
        .orElseThrow();
  }

  /** Every file but LOCK, by name and the sha-256 of its bytes: what a refused open must leave. */
  private static List<String> storeFiles(Path directory) {
    return RefusedOpenWritesNothingTest.contents(directory).entrySet().stream()
        .filter(e -> !e.getKey().equals(FileNames.LOCK))
        .map(e -> e.getKey() + " " + e.getValue())
        .toList();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
