package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static dev.shale.storage.core.EngineTesting.newest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.StorageException;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way opening refuses a store leaves the directory byte for byte as it was (issue 31,
 * defect 2; docs/format.md, "Damage found at open"): no new manifest or log segment, no file
 * deleted, no torn tail cut. Opening checks everything before it writes anything. Each case
 * damages a real store, lists and hashes every file in the directory (its LOCK too), opens, and
 * lists and hashes them again.
 */
class RefusedOpenWritesNothingTest {
  private static final int KEYS = 400;

  @TempDir Path dir;

  // Two passes over the same keys, so level-0 tables overlap; then writes left in the live log,
  // which (every frozen memtable flushed) is the manifest's log_number.
  @BeforeEach
  void fill() {
    // No level-0 compaction: it would merge the overlapping tables this test wants to find.
    EngineOptions options = EngineTesting.smallOptions().withL0Triggers(20, 24, 28);
    try (Engine engine = Engine.open(dir, options)) {
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < KEYS; i++) engine.put(key(i), value(pass, i));
      }
      for (int i = 0; i < 20; i++) engine.put(key(i), value(2, i));
      EngineTesting.await("the fill's flushes", () -> engine.stats().immutableMemtables() == 0);
    }
  }

  // Defect 2: the node logged "opened", deleted the manifest and wrote a new one and a new .wal,
  // and only then refused the level (the check ran when the engine built its levels).
  @Test
  void aTableAtALevelOutsideZeroToSixIsRefusedBeforeAnythingIsWritten() throws IOException {
    Path manifest = ManifestEdits.rewrite(dir, s -> {
      List<TableMeta> tables = new ArrayList<>(s.tables());
      tables.set(0, tables.getFirst().withLevel(9));
      return ManifestEdits.withTables(s, tables);
    });
    assertRefusedLeavingEveryByte(manifest.getFileName().toString(), "at level 9, outside 0..6");
  }

  // Defect 3: the store opened and every compaction of the table failed, leaving its outputs.
  @Test
  void aTableListedTwiceIsRefusedNamingIt() throws IOException {
    TableMeta twice = ManifestEdits.snapshot(dir).tables().getFirst();
    Path manifest = ManifestEdits.rewrite(dir, s -> {
      List<TableMeta> tables = new ArrayList<>(s.tables());
      tables.add(twice.withLevel(3));
      return ManifestEdits.withTables(s, tables);
    });
    assertRefusedLeavingEveryByte(manifest.getFileName().toString(),
        FileNames.table(twice.fileNumber()) + " twice");
  }

  @Test
  void overlappingTablesInOneLevelAreRefused() throws IOException {
    TableMeta[] pair = overlappingPair(ManifestEdits.snapshot(dir).tables());
    Path manifest = ManifestEdits.rewrite(dir, s -> {
      List<TableMeta> tables = new ArrayList<>();
      for (TableMeta t : s.tables()) {
        boolean moved = t.fileNumber() == pair[0].fileNumber() || t.fileNumber() == pair[1].fileNumber();
        tables.add(moved ? t.withLevel(1) : t);
      }
      return ManifestEdits.withTables(s, tables);
    });
    assertRefusedLeavingEveryByte(manifest.getFileName().toString(), "overlap at level 1");
  }

  @Test
  void aTableWhoseKeyRangeIsUpsideDownIsRefused() throws IOException {
    Path manifest = ManifestEdits.rewrite(dir, s -> {
      List<TableMeta> tables = new ArrayList<>(s.tables());
      tables.set(0, ManifestEdits.upsideDown(tables.getFirst()));
      return ManifestEdits.withTables(s, tables);
    });
    assertRefusedLeavingEveryByte(manifest.getFileName().toString(), "smallest key above its largest");
  }

  // Defect 6.
  @Test
  void aRemovedLiveLogSegmentIsRefusedNamingIt() throws IOException {
    Path live = newest(dir, FileNames.Kind.LOG);
    Files.delete(live);
    assertRefusedLeavingEveryByte(live.getFileName().toString(), "missing");
  }

  // Since manifest format_version 2 the snapshot lists its segments, from log_number on: a
  // log_number moved alone breaks that before the segment it names is looked for.
  @Test
  void aLogNumberThatSkipsTheLiveSegmentIsRefusedNamingTheSegmentItNames() throws IOException {
    long skipped = ManifestEdits.snapshot(dir).nextFileNumber();
    ManifestEdits.rewrite(dir, s -> ManifestEdits.withLogNumber(s, skipped));
    assertRefusedLeavingEveryByte(FileNames.log(skipped), "but the log segments it lists start at");
  }

  // The same skip with the list moved too: the segment it names is missing.
  @Test
  void aLogNumberAndSegmentsThatSkipTheLiveSegmentAreRefusedNamingTheSegmentTheyName() throws IOException {
    long skipped = ManifestEdits.snapshot(dir).nextFileNumber();
    ManifestEdits.rewrite(dir, s -> ManifestEdits.withSegments(s.withNextFileNumber(skipped + 1), List.of(skipped)));
    assertRefusedLeavingEveryByte(FileNames.log(skipped), "missing");
  }

  @Test
  void aMissingTableIsRefused() throws IOException {
    Path table = newest(dir, FileNames.Kind.TABLE);
    Files.delete(table);
    assertRefusedLeavingEveryByte(table.getFileName().toString(), "missing");
  }

  @Test
  void aTableWithABadFooterIsRefused() throws IOException {
    Path table = newest(dir, FileNames.Kind.TABLE);
    byte[] bytes = Files.readAllBytes(table);
    bytes[bytes.length - 1] ^= 0x40; // the footer's magic
    Files.write(table, bytes);
    assertRefusedLeavingEveryByte(table.getFileName().toString(), "");
  }

  @Test
  void tablesWithoutAManifestAreRefused() throws IOException {
    Files.delete(newest(dir, FileNames.Kind.MANIFEST));
    assertRefusedLeavingEveryByte("no valid MANIFEST", "nothing was deleted");
  }

  // Recovery cut a torn tail off the live segment while reading the segments, and a segment
  // after it could still make the open fail: the tail was gone by then.
  @Test
  void aTornTailFollowedByAHeaderlessSegmentIsRefusedWithTheTailUncut() throws IOException {
    Path live = newest(dir, FileNames.Kind.LOG);
    appendTornRecord(live);
    long next = ManifestEdits.snapshot(dir).nextFileNumber();
    Path headerless = dir.resolve(FileNames.log(next));
    Files.write(headerless, new byte[0]);
    Files.write(dir.resolve(FileNames.log(next + 1)), Arrays.copyOf(Files.readAllBytes(live), 16));
    assertRefusedLeavingEveryByte(headerless.getFileName().toString(), "has no header");
  }

  @Test
  void aTornTailFollowedByASegmentOfAnotherFormatIsRefusedWithTheTailUncut() throws IOException {
    Path live = newest(dir, FileNames.Kind.LOG);
    appendTornRecord(live);
    long next = ManifestEdits.snapshot(dir).nextFileNumber();
    byte[] header = Arrays.copyOf(Files.readAllBytes(live), 16);
    header[8] = 99; // format_version
    Path other = dir.resolve(FileNames.log(next));
    Files.write(other, header);
    assertRefusedLeavingEveryByte(other.getFileName().toString(), "format version 99");
  }

  private void assertRefusedLeavingEveryByte(String named, String saying) {
    Map<String, String> before = contents(dir);
    Throwable refusal = catchThrowable(() -> Engine.open(dir, EngineOptions.defaults()).close());
    assertThat(refusal).as("the refusal to open").isInstanceOf(StorageException.class);
    assertThat(contents(dir)).as("every file of the refused store, by name and sha-256").isEqualTo(before);
    assertThat(refusal).hasMessageContaining(named).hasMessageContaining(saying);
  }

  // A record header announcing 1,000 bytes of which 10 arrived: a torn write.
  private static void appendTornRecord(Path segment) throws IOException {
    byte[] torn = new byte[18];
    torn[4] = (byte) 0xE8;
    torn[5] = 0x03;
    Files.write(segment, torn, StandardOpenOption.APPEND);
  }

  private static TableMeta[] overlappingPair(List<TableMeta> tables) {
    for (int i = 0; i < tables.size(); i++) {
      for (int j = i + 1; j < tables.size(); j++) {
        TableMeta a = tables.get(i);
        TableMeta b = tables.get(j);
        if (Arrays.compareUnsigned(a.largestKey(), b.smallestKey()) >= 0
            && Arrays.compareUnsigned(b.largestKey(), a.smallestKey()) >= 0) {
          return new TableMeta[] {a, b};
        }
      }
    }
    throw new AssertionError("the fill left no two tables with overlapping key ranges: " + tables);
  }

  /** Every file of {@code directory} by name, with the sha-256 of its bytes. */
  static Map<String, String> contents(Path directory) {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> list = Files.list(directory)) {
      for (Path file : list.toList()) {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        files.put(file.getFileName().toString(), HexFormat.of().formatHex(digest));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
    return files;
  }

  private static byte[] key(int i) {
    return bytes(String.format("key-%05d", i));
  }

  private static byte[] value(int pass, int i) {
    return bytes("value-" + pass + "-" + i + "-" + "v".repeat(150));
  }
}
