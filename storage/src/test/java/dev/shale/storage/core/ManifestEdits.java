package dev.shale.storage.core;

import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.manifest.ManifestLoader;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;

/**
 * Damage that framing cannot see: a store's newest manifest snapshot changed and written back as
 * the manifest's only record, with a valid crc, as a hand edit or a bug writing a wrong snapshot
 * would leave it. For tests of what opening makes of a manifest that is valid but inconsistent.
 */
final class ManifestEdits {
  private ManifestEdits() {}

  /** Replaces the newest manifest of {@code dir} by one holding {@code change} of its snapshot; returns its path. */
  static Path rewrite(Path dir, UnaryOperator<ManifestSnapshot> change) throws IOException {
    ManifestLoader.Loaded loaded = ManifestLoader.load(Vfs.real(), dir).orElseThrow();
    Path file = dir.resolve(FileNames.manifest(loaded.fileNumber()));
    ManifestSnapshot changed = change.apply(loaded.snapshot());
    Files.delete(file);
    try (Manifest manifest = Manifest.unwritten(Vfs.real(), dir)) {
      manifest.commit(changed, loaded::fileNumber);
    }
    return file;
  }

  /**
   * Replaces the newest manifest of {@code dir} by a format_version 1 manifest (docs/format.md,
   * "Manifest") holding its first record, which the open that wrote the file wrote, with
   * {@code logNumber} as its log_number: what a build from before format_version 2 leaves (it
   * wrote no record at a segment switch), then edited by hand. Encoded here from the spec, not by
   * the engine's encoder. Returns the manifest's path.
   */
  static Path replaceByVersion1OfFirstRecord(Path dir, long logNumber) throws IOException {
    long number = ManifestLoader.load(Vfs.real(), dir).orElseThrow().fileNumber();
    Path file = dir.resolve(FileNames.manifest(number));
    ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    // header := magic:u64 format_version:u32 reserved:u32; record := crc:u32 length:u32 payload
    int payloadStart = 16 + 8;
    // payload := next_file_number:u64 log_number:u64 last_version:u64 table_count:u32 table*
    //            (format_version 2: segment_count:u32 segment_number:u64*, left out here)
    int position = payloadStart + 24;
    int tableCount = in.getInt(position);
    position += 4;
    for (int t = 0; t < tableCount; t++) {
      position += 8 + 4 + 8 + 8 + 8 + 8; // file_number level file_size entry_count min_version max_version
      position += 4 + in.getInt(position); // smallest
      position += 4 + in.getInt(position); // largest
    }
    byte[] payload = new byte[position - payloadStart];
    in.get(payloadStart, payload);
    ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).putLong(8, logNumber);

    ByteBuffer out = ByteBuffer.allocate(16 + 8 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(in.getLong(0)).putInt(1).putInt(0);
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, payload.length).array());
    crc.update(payload);
    out.putInt((int) crc.getValue()).putInt(payload.length).put(payload);
    Files.write(file, out.array());
    return file;
  }

  /** The newest snapshot of {@code dir}, as opening would read it. */
  static ManifestSnapshot snapshot(Path dir) throws IOException {
    return ManifestLoader.load(Vfs.real(), dir).orElseThrow().snapshot();
  }

  static ManifestSnapshot withTables(ManifestSnapshot snapshot, List<TableMeta> tables) {
    return new ManifestSnapshot(snapshot.nextFileNumber(), snapshot.logNumber(), snapshot.lastVersion(),
        tables, snapshot.segments());
  }

  /** {@code snapshot} with another log_number, and the same segments listed. */
  static ManifestSnapshot withLogNumber(ManifestSnapshot snapshot, long logNumber) {
    return new ManifestSnapshot(snapshot.nextFileNumber(), logNumber, snapshot.lastVersion(),
        snapshot.tables(), snapshot.segments());
  }

  /** {@code snapshot} listing {@code segments}, with the first of them (or next_file_number) as log_number. */
  static ManifestSnapshot withSegments(ManifestSnapshot snapshot, List<Long> segments) {
    long logNumber = segments.isEmpty() ? snapshot.nextFileNumber() : segments.getFirst();
    return new ManifestSnapshot(snapshot.nextFileNumber(), logNumber, snapshot.lastVersion(),
        snapshot.tables(), segments);
  }

  /** {@code table} with its smallest and largest keys swapped. */
  static TableMeta upsideDown(TableMeta t) {
    return new TableMeta(t.fileNumber(), t.level(), t.fileSizeBytes(), t.entryCount(),
        t.minVersion(), t.maxVersion(), t.largestKey(), t.smallestKey());
  }
}
