package dev.shale.storage.inspect;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.io.RecordReader.TornTail;
import dev.shale.storage.manifest.ManifestRecords;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableInspection;
import dev.shale.storage.table.TableMeta;
import dev.shale.storage.wal.LogReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads one file of a data directory, a table, a log segment or a manifest (by its name:
 * docs/format.md, "The data directory"), and hands what it holds to a {@link DumpSink}: the
 * offline tools' {@code dump}, like RocksDB's {@code sst_dump} and {@code ldb dump_wal}. It reads
 * through the engine's readers (TableInspection, LogReader, ManifestRecords), so it shows the
 * records as the engine reads them, and goes on past a damaged block of a table. Writes nothing;
 * holds the directory's lock while it reads ({@link ReadLock}).
 */
public final class FileDump {
  private FileDump() {}

  /**
   * Dumps {@code file} to {@code sink}; returns true if it found damage (also sent to the sink).
   *
   * @throws IllegalArgumentException if the name is not that of a table, log segment or manifest
   * @throws StorageException if the file is missing, or a node holds its directory
   */
  public static boolean dump(Path file, DumpSink sink) throws IOException {
    Vfs vfs = Vfs.real();
    Path name = Objects.requireNonNull(file.getFileName(), "a file has a name");
    Optional<FileNames.Parsed> parsed = FileNames.parse(name.toString());
    if (parsed.isEmpty() || parsed.get().kind() == FileNames.Kind.TEMP) {
      throw new IllegalArgumentException(file + " is not named as a table (<n>.sst), a log segment (<n>.wal) or a"
          + " manifest (MANIFEST-<n>)");
    }
    if (!vfs.exists(file) || Directories.isDirectory(vfs, file)) throw new StorageException(file + " is not a file");
    Path directory = file.toAbsolutePath().getParent();
    try (ReadLock lock = ReadLock.acquire(vfs, Objects.requireNonNull(directory, "a file is in a directory"))) {
      return switch (parsed.get().kind()) {
        case TABLE -> dumpTable(vfs, file, parsed.get().number(), sink);
        case LOG -> dumpSegment(vfs, file, sink);
        case MANIFEST -> dumpManifest(vfs, file, sink);
        case TEMP -> throw new IllegalStateException("refused above");
      };
    }
  }

  private static boolean dumpTable(Vfs vfs, Path file, long number, DumpSink sink) throws IOException {
    try (TableInspection table = TableInspection.open(vfs, file, number)) {
      sink.table(new DumpSink.TableHeader(file, table.sizeBytes(), table.formatVersion(), table.footerFileNumber(),
          table.entryCount(), table.minVersion(), table.maxVersion(), table.blockCount(), table.indexOffset(),
          table.indexLength(), table.filterOffset(), table.filterLength(), table.filterDamage(), table.footerOffset()));
      boolean damaged = table.filterDamage() != null;
      if (damaged) {
        sink.finding(Finding.damage(file, table.filterOffset(), "Bloom filter unusable: " + table.filterDamage()));
      }
      for (int block = 0; block < table.blockCount(); block++) {
        byte[] firstKey = table.blockFirstKey(block);
        sink.indexEntry(block, table.blockOffset(block), table.blockLength(block),
            firstKey == null ? new byte[0] : firstKey, table.blockLastKey(block));
      }
      TableInspection.Walked walked = table.walk(new TableInspection.BlockVisitor() {
        @Override
        public void record(int block, Entry record) {
          sink.record(table.blockOffset(block), block, record);
        }

        @Override
        public void damaged(int block, CorruptionException damage) {
          sink.finding(Finding.damage(damage.file(), -1, damage.problem()));
        }
      });
      return damaged || walked.damagedBlocks() > 0;
    } catch (CorruptionException e) {
      sink.finding(Finding.damage(e.file(), -1, e.problem())); // the footer or index: nothing more to read
      return true;
    }
  }

  private static boolean dumpSegment(Vfs vfs, Path file, DumpSink sink) throws IOException {
    try (LogReader reader = LogReader.open(vfs, file)) {
      sink.segment(new DumpSink.SegmentHeader(file, vfs.size(file), reader.headerMissing()));
      try {
        for (Entry record = reader.next(); record != null; record = reader.next()) {
          sink.record(reader.lastOffset(), -1, record);
        }
      } catch (CorruptionException e) {
        sink.finding(Finding.damage(e.file(), -1, e.problem()));
        return true;
      }
      TornTail tail = reader.tornTail();
      if (tail == null || reader.headerMissing()) return false;
      // Whether a tail is a torn append or damage depends on the segments after this one too:
      // what a dump can say of one file is what ended its records and what follows.
      boolean damage = tail.followedByValidRecords() || !tail.cutShort();
      String after = tail.followedByValidRecords()
          ? ", followed by " + tail.validRecordsAfter() + " valid records from offset " + tail.nextValidOffset()
          : "";
      String kind = tail.cutShort() && !tail.followedByValidRecords()
          ? "a record cut short by the end of the file (a torn append, if this is the last segment)"
          : "not one record cut short by the end of the file: damage";
      sink.finding(new Finding(file, tail.offset(), "records end: " + tail.droppedBytes() + " bytes (" + tail.reason()
          + ")" + after + "; " + kind + " (shale tool verify judges it with the other segments)", damage));
      return damage;
    } catch (CorruptionException e) {
      sink.finding(Finding.damage(e.file(), -1, e.problem())); // its header
      return true;
    }
  }

  private static boolean dumpManifest(Vfs vfs, Path file, DumpSink sink) throws IOException {
    sink.manifest(file, vfs.size(file));
    ManifestRecords records;
    try {
      records = ManifestRecords.read(vfs, file);
    } catch (CorruptionException e) {
      sink.finding(Finding.damage(e.file(), -1, e.problem()));
      return true;
    }
    boolean damage = false;
    for (ManifestRecords.RecordAt record : records.records()) {
      ManifestSnapshot snapshot = record.snapshot();
      sink.manifestRecord(record.offset(), snapshot == null ? null : view(snapshot), record.problem());
      damage |= record.problem() != null;
    }
    TornTail tail = records.tail();
    if (tail != null && !records.headerMissing()) {
      boolean inTheMiddle = tail.followedByValidRecords();
      sink.finding(new Finding(file, tail.offset(), "records end: " + tail.droppedBytes() + " bytes (" + tail.reason()
          + ")" + (inTheMiddle ? ", followed by " + tail.validRecordsAfter() + " valid records: not a torn append"
              : ": a torn append, which opening ignores"), inTheMiddle));
      damage |= inTheMiddle;
    }
    return damage;
  }

  private static DumpSink.Snapshot view(ManifestSnapshot snapshot) {
    return new DumpSink.Snapshot(snapshot.nextFileNumber(), snapshot.logNumber(), snapshot.lastVersion(), snapshot.segments(),
        snapshot.sealedSizes(),
        snapshot.tables().stream().map(FileDump::view).toList());
  }

  private static DumpSink.SnapshotTable view(TableMeta t) {
    return new DumpSink.SnapshotTable(t.fileNumber(), t.level(), t.fileSizeBytes(), t.entryCount(), t.minVersion(),
        t.maxVersion(), t.smallestKey(), t.largestKey());
  }
}
