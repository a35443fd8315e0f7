package dev.shale.storage.core;

import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.manifest.ManifestLoader;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

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
    Manifest.create(Vfs.real(), dir, loaded.fileNumber(), changed).close();
    return file;
  }

  /** The newest snapshot of {@code dir}, as opening would read it. */
  static ManifestSnapshot snapshot(Path dir) throws IOException {
    return ManifestLoader.load(Vfs.real(), dir).orElseThrow().snapshot();
  }

  static ManifestSnapshot withTables(ManifestSnapshot snapshot, List<TableMeta> tables) {
    return new ManifestSnapshot(
        snapshot.nextFileNumber(), snapshot.logNumber(), snapshot.lastVersion(), tables);
  }

  static ManifestSnapshot withLogNumber(ManifestSnapshot snapshot, long logNumber) {
    return new ManifestSnapshot(
        snapshot.nextFileNumber(), logNumber, snapshot.lastVersion(), snapshot.tables());
  }

  /** {@code table} with its smallest and largest keys swapped. */
  static TableMeta upsideDown(TableMeta t) {
    return new TableMeta(t.fileNumber(), t.level(), t.fileSizeBytes(), t.entryCount(),
        t.minVersion(), t.maxVersion(), t.largestKey(), t.smallestKey());
  }
}
