package dev.shale.storage.core;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.ManifestLoader;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.wal.LogReader;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Checks that the log segments still on disk below the chosen snapshot's log_number were indeed
 * flushed (docs/format.md, "Recovery at open", step 1), before opening deletes them as obsolete:
 * a log_number moved past a segment never flushed (a hand-made or mixed-up manifest record with a
 * valid crc) would otherwise delete its writes without a word (issue 31, defect 6). Public for
 * the offline tools' verify ({@code dev.shale.storage.inspect}), which runs the same check.
 */
public final class RetiredSegments {
  /*
   * Why versions tell. A flush builds its snapshot under the write lock after its memtable was
   * frozen, and a frozen segment takes no more records (only the write leader appends, and it
   * switches segments between groups), so the snapshot's last_version, the clock then, is at least
   * every version in the segment it retires; the clock only moves forward, and opening starts it
   * at the manifest's last_version, so every later snapshot's is too. A record above the chosen
   * snapshot's last_version was therefore in no segment that snapshot, or one before it, retired.
   * The converse does not hold: a segment whose records are all older than last_version may still
   * have been skipped (format.md says what is not detected).
   *
   * Such segments are there only when a flush died between its commit and deleting its segment,
   * so reading them costs opening nothing in the common case. Reading stops at the first bad
   * record, which is no refusal here: the segment is obsolete if its records are old enough.
   */

  private static final System.Logger LOG = System.getLogger(RetiredSegments.class.getName());

  private RetiredSegments() {}

  /** Throws a CorruptionException naming the first segment below log_number that was never flushed. */
  static void check(Vfs vfs, Path directory, ManifestLoader.Loaded loaded, DirectoryListing listing)
      throws IOException {
    CorruptionException skipped = problem(vfs, directory, loaded, listing);
    if (skipped != null) throw skipped;
  }

  /** The first segment below log_number that was never flushed, as the exception opening throws for it, or null. */
  public static @Nullable CorruptionException problem(Vfs vfs, Path directory, ManifestLoader.Loaded loaded,
      DirectoryListing listing) throws IOException {
    ManifestSnapshot snapshot = loaded.snapshot();
    for (long number : listing.logs().headSet(snapshot.logNumber())) {
      Path file = directory.resolve(FileNames.log(number));
      OptionalLong newer = firstVersionAbove(vfs, file, snapshot.lastVersion());
      if (newer.isEmpty()) continue;
      return new CorruptionException(file, "log segment numbered below the log_number ("
          + FileNames.log(snapshot.logNumber()) + ") of " + FileNames.manifest(loaded.fileNumber())
          + ", so taken as flushed, holds a record of version " + Long.toUnsignedString(newer.getAsLong())
          + ", above that snapshot's last_version " + Long.toUnsignedString(snapshot.lastVersion())
          + ": no flush put it in a table (a flush's snapshot is built after every record of its"
          + " segment), so the manifest's log_number skipped it. Opening would delete it and lose"
          + " its writes (deleted keys would come back, overwritten values reappear)."
          + SnapshotAccounting.REMEDY);
    }
    return null;
  }

  // The version of the segment's first record above `limit`, if it has one.
  private static OptionalLong firstVersionAbove(Vfs vfs, Path file, long limit) throws IOException {
    try (LogReader reader = LogReader.open(vfs, file)) {
      for (Entry entry = reader.next(); entry != null; entry = reader.next()) {
        if (Long.compareUnsigned(entry.version(), limit) > 0) return OptionalLong.of(entry.version());
      }
    } catch (CorruptionException e) {
      LOG.log(Level.WARNING, file + ": a flushed log segment, to be deleted, reads as damaged from where"
          + " its versions were checked on: " + e.getMessage());
    }
    return OptionalLong.empty();
  }
}
