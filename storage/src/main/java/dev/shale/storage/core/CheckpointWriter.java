package dev.shale.storage.core;

import dev.shale.storage.Checkpoint;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableMeta;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a checkpoint of a store (as RocksDB's Checkpoint): a new directory holding a hard link
 * to each table of one read view and a manifest naming exactly those tables, which opens as a
 * store of its own (docs/format.md, "Checkpoints").
 *
 * <p>Invariant: the view passed in is retained by the caller for the whole call, so none of its
 * tables is deleted (a compaction that replaces one deletes the file only once the last
 * reference is gone) while it is linked. Links share the table's bytes: the store deleting its
 * name later leaves the checkpoint's intact, as tables are never changed in place.
 */
final class CheckpointWriter {
  private static final System.Logger LOG = System.getLogger(CheckpointWriter.class.getName());

  private CheckpointWriter() {}

  /**
   * Writes the checkpoint of {@code view}'s tables to {@code target}, which must not exist:
   * built under a hidden sibling name and renamed into place once complete and fsynced, so
   * {@code target} either holds a whole checkpoint or does not exist.
   */
  static Checkpoint write(Vfs vfs, Path directory, ReadView view, long lastVersion, Path target)
      throws IOException {
    Path parent = target.toAbsolutePath().getParent();
    if (parent == null) throw new IOException("a checkpoint cannot be a file system's root: " + target);
    if (vfs.exists(target)) throw new IOException(target + " exists already");
    vfs.createDirectories(parent);
    Path partial = parent.resolve("." + target.getFileName() + ".partial");
    deleteTree(vfs, partial); // left by a crash during an earlier attempt
    vfs.createDirectories(partial);
    try {
      List<TableMeta> metas = new ArrayList<>();
      long bytes = 0;
      long highest = 0;
      for (SharedTable table : view.tables()) {
        TableMeta meta = table.meta();
        String name = FileNames.table(meta.fileNumber());
        vfs.link(directory.resolve(name), partial.resolve(name));
        metas.add(meta);
        bytes += meta.fileSizeBytes();
        highest = Math.max(highest, meta.fileNumber());
      }
      // The manifest is numbered above every table, and next_file_number above it; log_number
      // is next_file_number: the checkpoint holds no log segment, every record is in a table.
      long manifestNumber = highest + 1;
      long next = manifestNumber + 1;
      // The first commit writes MANIFEST-<manifestNumber> and fsyncs it and the directory, which
      // makes the links durable. No segment is listed: every record is in the tables.
      try (Manifest manifest = Manifest.unwritten(vfs, partial)) {
        manifest.commit(new ManifestSnapshot(next, next, lastVersion, metas, List.of()), () -> manifestNumber);
      }
      vfs.rename(partial, target);
      vfs.syncDirectory(parent);
      LOG.log(Level.INFO, "checkpoint of " + directory + " written to " + target + ": " + metas.size()
          + " tables, " + bytes + " bytes");
      return new Checkpoint(target, metas.size(), bytes);
    } catch (IOException | RuntimeException e) {
      try {
        deleteTree(vfs, partial);
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  // A checkpoint directory holds files only (tables, a manifest).
  private static void deleteTree(Vfs vfs, Path dir) throws IOException {
    if (!vfs.exists(dir)) return;
    for (Path file : vfs.list(dir)) vfs.delete(file);
    vfs.delete(dir);
  }
}
