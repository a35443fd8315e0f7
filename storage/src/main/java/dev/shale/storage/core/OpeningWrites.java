package dev.shale.storage.core;

import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.Manifest;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.util.Closeables;
import dev.shale.storage.wal.LogWriter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The writes of opening, once {@link Recovery} has read and checked everything
 * (docs/format.md, "Recovery at open", steps 3 and 4): create the new log segment, commit a new
 * manifest naming what recovery found and that segment, then delete what that manifest makes
 * obsolete. The segment comes first: no manifest ever names a segment that is not on disk, so a
 * missing one is damage, never a crash (SnapshotAccounting).
 *
 * <p>On a full disk they fail, and {@link PendingStart} runs them again while the engine serves
 * reads; each run does what the last one left undone. Until the manifest is durable the store's
 * older manifest, untouched, stays its state and nothing is deleted, so a node stopped meanwhile
 * opens again as it would have before (a segment created meanwhile holds no record: no loss).
 *
 * <p>Not thread safe: one thread at a time runs it (the opening thread, then PendingStart's).
 */
final class OpeningWrites {
  private static final System.Logger LOG = System.getLogger(OpeningWrites.class.getName());

  private final Vfs vfs;
  private final Path directory;
  private final ManifestSnapshot snapshot;
  private final long logNumber;
  private final List<Path> obsolete;
  private @Nullable LogWriter log; // the new segment, once created
  private boolean manifestCommitted;

  /**
   * @param snapshot the store as recovery found it; its log_number is the oldest replayed
   *     segment kept, or {@code logNumber}
   * @param logNumber the number of the new segment
   * @param obsolete the files {@code snapshot} leaves unreferenced: deleted once it is durable
   */
  OpeningWrites(Vfs vfs, Path directory, ManifestSnapshot snapshot, long logNumber, List<Path> obsolete) {
    this.vfs = vfs;
    this.directory = directory;
    this.snapshot = snapshot;
    this.logNumber = logNumber;
    this.obsolete = List.copyOf(obsolete);
  }

  /** The new log segment's file. */
  Path logFile() {
    return directory.resolve(FileNames.log(logNumber));
  }

  /** What is left to write, for messages: "a new log segment and manifest" or "a new manifest". */
  String undone() {
    return log == null ? "a new log segment (" + FileNames.log(logNumber) + ") and manifest" : "a new manifest";
  }

  /**
   * Runs the steps not done yet: creates the log segment, commits the snapshot to
   * {@code manifest} (a new file, numbered by {@code newFileNumber}: see
   * {@link Manifest#unwritten}), deletes the obsolete files. Returns the new segment.
   *
   * @throws IOException as the failed step threw it; a later call starts again from that step
   */
  LogWriter run(Manifest manifest, LongSupplier newFileNumber) throws IOException {
    if (log == null) log = createLog();
    if (!manifestCommitted) {
      manifest.commit(snapshot, newFileNumber);
      manifestCommitted = true;
    }
    obsolete.forEach(this::delete);
    return log;
  }

  /** Closes the segment created by a run that did not finish (the engine closes before it could). */
  void abandon() {
    if (log == null || manifestCommitted) return;
    Closeables.closeQuietly(log, log.path(), LOG);
  }

  // A failed creation leaves at most a file without its whole header, which holds no record: it
  // goes, so that the next run can create the segment anew.
  private LogWriter createLog() throws IOException {
    Path file = logFile();
    try {
      return LogWriter.create(vfs, file, logNumber);
    } catch (IOException | RuntimeException e) {
      try {
        vfs.delete(file);
      } catch (IOException deleteFailed) {
        e.addSuppressed(deleteFailed);
      }
      throw e;
    }
  }

  private void delete(Path file) {
    try {
      if (vfs.delete(file)) LOG.log(Level.INFO, "deleted " + file);
    } catch (IOException e) {
      LOG.log(Level.WARNING, "deleting " + file + " failed (retried at next open): " + e);
    }
  }
}
