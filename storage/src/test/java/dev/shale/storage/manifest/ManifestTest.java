package dev.shale.storage.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.ErrorInjectingVfs;
import dev.shale.storage.ErrorInjectingVfs.Errno;
import dev.shale.storage.ErrorInjectingVfs.Fault;
import dev.shale.storage.Vfs;
import dev.shale.storage.VfsOp;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestTest {
  @TempDir Path dir;

  private final AtomicLong fileNumbers = new AtomicLong(100);

  @Test
  void theLastCommittedSnapshotIsLoaded() throws IOException {
    ManifestSnapshot first = snapshot(10, 2, List.of());
    ManifestSnapshot second = snapshot(11, 3, List.of(table(4, "a", "m")));
    ManifestSnapshot third = snapshot(12, 5, List.of(table(6, "", "zz"), table(4, "a", "m")));
    try (Manifest manifest = written(Vfs.real(), dir, 1, first)) {
      manifest.commit(second, fileNumbers::getAndIncrement);
      manifest.commit(third, fileNumbers::getAndIncrement);
    }

    ManifestLoader.Loaded loaded = ManifestLoader.load(Vfs.real(), dir).orElseThrow();
    assertThat(loaded.fileNumber()).isEqualTo(1);
    assertSame(loaded.snapshot(), third);
  }

  @Test
  void aDirectoryWithoutManifestHasNoSnapshot() throws IOException {
    Files.writeString(dir.resolve("notes.txt"), "not a manifest");
    assertThat(ManifestLoader.load(Vfs.real(), dir)).isEmpty();
  }

  @Test
  void aTornLastRecordLeavesThePreviousSnapshot() throws IOException {
    ManifestSnapshot first = snapshot(10, 2, List.of(table(4, "a", "m")));
    ManifestSnapshot second = snapshot(11, 3, List.of(table(6, "b", "n"), table(4, "a", "m")));
    Path file = dir.resolve(FileNames.manifest(1));
    long secondStart;
    try (Manifest manifest = written(Vfs.real(), dir, 1, first)) {
      secondStart = manifest.sizeBytes();
      manifest.commit(second, fileNumbers::getAndIncrement);
    }
    byte[] whole = Files.readAllBytes(file);

    for (int cut = (int) secondStart; cut < whole.length; cut++) {
      Files.write(file, Arrays.copyOf(whole, cut));
      assertSame(ManifestLoader.load(Vfs.real(), dir).orElseThrow().snapshot(), first);
    }
    for (int at = (int) secondStart; at < whole.length; at++) {
      byte[] flipped = whole.clone();
      flipped[at] ^= 0x01;
      Files.write(file, flipped);
      assertSame(ManifestLoader.load(Vfs.real(), dir).orElseThrow().snapshot(), first);
    }
  }

  // Issue 12, defect 2 as it applies to the manifest: a manifest is never appended to after a
  // failed append, so valid records after a bad one mean a committed snapshot was damaged.
  @Test
  void aDamagedRecordFollowedByValidOnesIsCorruptionNamingTheOffset() throws IOException {
    ManifestSnapshot first = snapshot(10, 2, List.of(table(4, "a", "m")));
    ManifestSnapshot second = snapshot(11, 3, List.of(table(6, "b", "n"), table(4, "a", "m")));
    ManifestSnapshot third = snapshot(12, 3, List.of(table(6, "b", "n")));
    Path file = dir.resolve(FileNames.manifest(1));
    long secondStart;
    long thirdStart;
    try (Manifest manifest = written(Vfs.real(), dir, 1, first)) {
      secondStart = manifest.sizeBytes();
      manifest.commit(second, fileNumbers::getAndIncrement);
      thirdStart = manifest.sizeBytes();
      manifest.commit(third, fileNumbers::getAndIncrement);
    }
    byte[] whole = Files.readAllBytes(file);

    for (long at = secondStart; at < thirdStart; at++) {
      byte[] flipped = whole.clone();
      flipped[(int) at] ^= 0x01;
      Files.write(file, flipped);
      assertThatThrownBy(() -> ManifestLoader.load(Vfs.real(), dir))
          .as("damage at %d", at)
          .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(file))
          .hasMessageContaining("at offset " + secondStart + " followed by 1 valid records from offset "
              + thirdStart);
    }
  }

  @Test
  void theHighestNumberedManifestWithAValidRecordIsChosen() throws IOException {
    ManifestSnapshot three = snapshot(10, 2, List.of(table(4, "a", "b")));
    ManifestSnapshot five = snapshot(20, 8, List.of(table(7, "c", "d")));
    byte[] manifestThree = manifestBytes(3, three);
    byte[] manifestFive = manifestBytes(5, five);
    byte[] manifestSeven = manifestBytes(7, snapshot(30, 9, List.of()));
    Files.write(dir.resolve(FileNames.manifest(3)), manifestThree);
    Files.write(dir.resolve(FileNames.manifest(5)), manifestFive);
    // MANIFEST-7 died while being created: a header and half a record.
    Files.write(dir.resolve(FileNames.manifest(7)), Arrays.copyOf(manifestSeven, 30));
    Files.write(dir.resolve(FileNames.manifest(9)), Arrays.copyOf(manifestSeven, 10));

    ManifestLoader.Loaded loaded = ManifestLoader.load(Vfs.real(), dir).orElseThrow();
    assertThat(loaded.fileNumber()).isEqualTo(5);
    assertSame(loaded.snapshot(), five);
  }

  @Test
  void creatingAManifestDeletesOlderOnes() throws IOException {
    written(Vfs.real(), dir, 3, snapshot(10, 2, List.of())).close();
    written(Vfs.real(), dir, 5, snapshot(10, 4, List.of())).close();

    assertThat(manifestFiles()).containsExactly(FileNames.manifest(5));
    assertThat(ManifestLoader.load(Vfs.real(), dir).orElseThrow().snapshot().logNumber()).isEqualTo(4);
  }

  @Test
  void aManifestPastItsSizeLimitIsReplacedByANewFile() throws IOException {
    List<TableMeta> tables = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      tables.add(table(i, "k".repeat(10_000) + i, "z".repeat(10_000) + i));
    }
    ManifestSnapshot big = snapshot(50, 2, tables);
    try (Manifest manifest = written(Vfs.real(), dir, 1, big)) {
      for (int i = 0; manifest.fileNumber() == 1; i++) {
        assertThat(i).as("commits before rotation").isLessThan(100);
        manifest.commit(snapshot(fileNumbers.get(), 3 + i, tables), fileNumbers::getAndIncrement);
      }
      assertThat(manifest.fileNumber()).isEqualTo(100);
      manifest.commit(snapshot(fileNumbers.get(), 1_000, tables), fileNumbers::getAndIncrement);
    }

    assertThat(manifestFiles()).containsExactly(FileNames.manifest(100));
    ManifestLoader.Loaded loaded = ManifestLoader.load(Vfs.real(), dir).orElseThrow();
    assertThat(loaded.snapshot().logNumber()).isEqualTo(1_000);
    assertThat(loaded.snapshot().nextFileNumber()).isGreaterThan(100);
  }

  @Test
  void aSnapshotMustNumberFilesAboveTheManifest() throws IOException {
    try (Manifest manifest = written(Vfs.real(), dir, 10, snapshot(20, 2, List.of()))) {
      ManifestSnapshot numberedTooLow = snapshot(10, 2, List.of());
      assertThatThrownBy(() -> manifest.commit(numberedTooLow, fileNumbers::getAndIncrement))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("next_file_number 10");
    }
    assertThat(ManifestLoader.load(Vfs.real(), dir).orElseThrow().snapshot().nextFileNumber()).isEqualTo(20);
  }

  // Format_version 2 lists the segments that must be on disk; a record whose crc holds but whose
  // list the engine never writes is refused like a table at a wrong level.
  @Test
  void segmentsThatDoNotStartAtLogNumberOrAreOutOfOrderAreRefused() throws IOException {
    record Case(List<Long> segments, String saying) {}
    List<Case> cases = List.of(
        new Case(List.of(3L, 4L), "its log_number names 000002.wal but the log segments it lists start at 000003.wal"),
        new Case(List.of(2L, 5L, 4L), "out of order: 000004.wal after 000005.wal"),
        new Case(List.of(2L, 10L), "000010.wal, not below next_file_number 10"),
        new Case(List.of(), "it lists no log segment, yet its log_number names 000002.wal"));
    for (Case c : cases) {
      Path store = Files.createTempDirectory(dir, "case");
      written(Vfs.real(), store, 1, new ManifestSnapshot(10, 2, 7, List.of(), c.segments())).close();
      assertThatThrownBy(() -> ManifestLoader.load(Vfs.real(), store))
          .as("segments %s", c.segments())
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("MANIFEST-000001")
          .hasMessageContaining(c.saying());
    }
  }

  // Format_version 3: each listed segment writes have left carries the size it had then.
  @Test
  void sealedSizesAreReadBackAsWritten() throws IOException {
    ManifestSnapshot written = new ManifestSnapshot(10, 2, 7, List.of(table(4, "a", "m")), List.of(2L, 5L, 8L),
        Map.of(2L, 4_096L, 5L, 16L));
    written(Vfs.real(), dir, 1, written).close();

    ManifestLoader.Loaded loaded = ManifestLoader.load(Vfs.real(), dir).orElseThrow();
    assertThat(loaded.formatVersion()).isEqualTo(3);
    assertSame(loaded.snapshot(), written);
  }

  // A sealed_size belongs to a listed segment before the last, and is at least a header.
  @Test
  void sealedSizesTheEngineNeverWritesAreRefused() throws IOException {
    record Case(Map<Long, Long> sealed, String saying) {}
    List<Case> cases = List.of(
        new Case(Map.of(8L, 100L), "gives 000008.wal a sealed_size, but only a listed segment before the last"),
        new Case(Map.of(2L, 15L), "gives 000002.wal a sealed_size of 15 bytes, less than a segment's header"));
    for (Case c : cases) {
      Path store = Files.createTempDirectory(dir, "case");
      written(Vfs.real(), store, 1, new ManifestSnapshot(10, 2, 7, List.of(), List.of(2L, 5L, 8L), c.sealed())).close();
      assertThatThrownBy(() -> ManifestLoader.load(Vfs.real(), store))
          .as("sealed sizes %s", c.sealed())
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(c.saying());
    }
  }

  // A store written before format_version 2: its records end after the tables, and list no segment.
  @Test
  void aVersion1ManifestIsReadAndListsNoSegment() throws IOException {
    ManifestSnapshot written = snapshot(10, 2, List.of(table(4, "a", "m")));
    byte[] v2 = manifestBytes(1, written);
    ByteBuffer in = ByteBuffer.wrap(v2).order(ByteOrder.LITTLE_ENDIAN);
    int length = in.getInt(20) - 4 - 16; // without segment_count and its one segment (number, sealed_size)
    ByteBuffer v1 = ByteBuffer.allocate(16 + 8 + length).order(ByteOrder.LITTLE_ENDIAN);
    v1.put(v2, 0, 16).putInt(8, 1); // format_version 1
    v1.position(24);
    v1.put(v2, 24, length);
    v1.putInt(20, length);
    CRC32C crc = new CRC32C();
    crc.update(v1.array(), 20, 4 + length);
    v1.putInt(16, (int) crc.getValue());
    Files.write(dir.resolve(FileNames.manifest(1)), v1.array());

    ManifestLoader.Loaded loaded = ManifestLoader.load(Vfs.real(), dir).orElseThrow();
    assertThat(loaded.formatVersion()).isEqualTo(1);
    assertThat(loaded.listsSegments()).isFalse();
    assertSame(loaded.snapshot(), new ManifestSnapshot(written.nextFileNumber(), written.logNumber(),
        written.lastVersion(), written.tables(), List.of()));
  }

  @Test
  void aManifestOfAFormatVersionFromTheFutureIsRefused() throws IOException {
    byte[] bytes = manifestBytes(1, snapshot(10, 2, List.of()));
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(8, 4);
    Files.write(dir.resolve(FileNames.manifest(1)), bytes);

    assertThatThrownBy(() -> ManifestLoader.load(Vfs.real(), dir))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("format version 4 at offset 8 is not supported (expected 1 to 3)");
  }

  @Test
  void afterAFailedFsyncTheNextCommitGoesToANewFile() throws IOException {
    ErrorInjectingVfs vfs = new ErrorInjectingVfs(0);
    try (Manifest manifest = written(vfs, dir, 1, snapshot(10, 2, List.of()))) {
      vfs.inject(Fault.on("*", VfsOp.SYNC));
      ManifestSnapshot lost = snapshot(10, 3, List.of());
      assertThatThrownBy(() -> manifest.commit(lost, fileNumbers::getAndIncrement))
          .isInstanceOf(IOException.class);
      vfs.clear();

      manifest.commit(snapshot(10, 4, List.of()), fileNumbers::getAndIncrement);
      assertThat(manifest.fileNumber()).isEqualTo(100);
    }
    assertThat(ManifestLoader.load(Vfs.real(), dir).orElseThrow().snapshot().logNumber()).isEqualTo(4);
    assertThat(manifestFiles()).containsExactly(FileNames.manifest(100));
  }

  // Issue 31, defect 4: an open on a full disk cannot write its new manifest. The older one must
  // stay whole and the state, with no header-less file beside it; a later commit writes the new one.
  @Test
  void anUnwrittenManifestWhoseFirstWriteFindsTheDiskFullLeavesTheOlderOneTheState() throws IOException {
    written(Vfs.real(), dir, 3, snapshot(10, 2, List.of())).close();
    byte[] older = Files.readAllBytes(dir.resolve(FileNames.manifest(3)));
    ErrorInjectingVfs vfs = new ErrorInjectingVfs(0);
    vfs.inject(Fault.on("*", VfsOp.APPEND).errno(Errno.ENOSPC));
    try (Manifest manifest = Manifest.unwritten(vfs, dir)) {
      assertThatThrownBy(() -> manifest.commit(snapshot(10, 4, List.of()), fileNumbers::getAndIncrement))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("No space left on device");
      assertThat(manifestFiles()).containsExactly(FileNames.manifest(3));
      assertThat(Files.readAllBytes(dir.resolve(FileNames.manifest(3)))).isEqualTo(older);

      vfs.clear();
      manifest.commit(snapshot(10, 4, List.of()), fileNumbers::getAndIncrement);
      assertThat(manifest.fileNumber()).isEqualTo(101);
    }
    assertThat(manifestFiles()).containsExactly(FileNames.manifest(101));
    assertThat(ManifestLoader.load(Vfs.real(), dir).orElseThrow().snapshot().logNumber()).isEqualTo(4);
  }

  @Test
  void aRecordWithAValidCrcThatDoesNotParseIsCorrupt() throws IOException {
    byte[] bytes = manifestBytes(1, snapshot(10, 2, List.of(table(4, "a", "b"))));
    ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    buffer.putInt(16 + 8 + 24, 1_000); // table_count, far more than the payload holds
    CRC32C crc = new CRC32C();
    crc.update(bytes, 20, bytes.length - 20);
    buffer.putInt(16, (int) crc.getValue());
    Files.write(dir.resolve(FileNames.manifest(1)), bytes);

    assertThatThrownBy(() -> ManifestLoader.load(Vfs.real(), dir))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("MANIFEST-000001")
        .hasMessageContaining("offset 16");
  }

  private byte[] manifestBytes(long number, ManifestSnapshot snapshot) throws IOException {
    Path scratch = Files.createTempDirectory(dir, "scratch");
    written(Vfs.real(), scratch, number, snapshot).close();
    return Files.readAllBytes(scratch.resolve(FileNames.manifest(number)));
  }

  // A manifest whose first file is MANIFEST-<number>, written as opening and a checkpoint write theirs.
  private static Manifest written(Vfs vfs, Path dir, long number, ManifestSnapshot snapshot) throws IOException {
    Manifest manifest = Manifest.unwritten(vfs, dir);
    manifest.commit(snapshot, () -> number);
    return manifest;
  }

  private List<String> manifestFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("MANIFEST"))
          .toList();
    }
  }

  // Listing segment `log` alone, or none when it is not below `next` (a snapshot naming no segment).
  private static ManifestSnapshot snapshot(long next, long log, List<TableMeta> tables) {
    return new ManifestSnapshot(next, log, 1_000L * next + log, tables, log < next ? List.of(log) : List.of());
  }

  private static TableMeta table(long number, String smallest, String largest) {
    return new TableMeta(number, 0, 4096 + number, 10 * number, number, 100 + number,
        smallest.getBytes(StandardCharsets.UTF_8), largest.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertSame(ManifestSnapshot actual, ManifestSnapshot expected) {
    assertThat(actual.nextFileNumber()).isEqualTo(expected.nextFileNumber());
    assertThat(actual.logNumber()).isEqualTo(expected.logNumber());
    assertThat(actual.lastVersion()).isEqualTo(expected.lastVersion());
    assertThat(actual.segments()).isEqualTo(expected.segments());
    assertThat(actual.sealedSizes()).isEqualTo(expected.sealedSizes());
    assertThat(actual.tables()).hasSameSizeAs(expected.tables());
    for (int i = 0; i < expected.tables().size(); i++) {
      TableMeta a = actual.tables().get(i);
      TableMeta e = expected.tables().get(i);
      assertThat(a).usingRecursiveComparison().isEqualTo(e);
    }
  }
}
