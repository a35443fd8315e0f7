package dev.shale.storage.core;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.manifest.ManifestLoader;
import dev.shale.storage.manifest.ManifestSnapshot;
import dev.shale.storage.table.TableMeta;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Checks that the manifest snapshot chosen at open accounts for the logs and tables in the
 * directory (docs/format.md, "Recovery at open", step 1), so that a lost commit (a damaged or
 * truncated manifest falling back to an older snapshot) or a removed file makes opening fail
 * instead of serving part of the store and deleting the rest as leftovers. Public for the offline
 * tools' verify ({@code dev.shale.storage.inspect}), which runs the same checks and lists every
 * failure rather than the first.
 */
public final class SnapshotAccounting {
  /*
   * Why these two checks, from the write protocol. A commit that did not return (a torn append)
   * deleted nothing: the previous snapshot's log segment and tables are all on disk, and tables
   * it does not name are leftovers whose records are still in the logs or in compaction inputs.
   * A durable commit that was later lost did delete: the tables a compaction replaced (so the
   * older snapshot names a missing table), or the segment a flush retired, segment log_number
   * (flushes go oldest first), beside the flush's table and newer segments numbered above it.
   *
   * Segment log_number itself exists from before any snapshot names it (recovery creates it,
   * header and directory entry fsynced, before the manifest naming it; so does a writer switching
   * segments, before a flush's commit can name it) until a durable later snapshot moves past it.
   * So a missing one is never a crash: it was removed (its writes, the newest the store took,
   * would be lost and deleted ones would come back) or the snapshot is a lost commit's
   * predecessor. The exception is a snapshot naming no segment at all, log_number >=
   * next_file_number, as a checkpoint's does: every record is in its tables.
   *
   * From manifest format_version 2 a snapshot lists every segment holding writes in no table,
   * and each was created, header and directory entry fsynced, before the record listing it; it
   * is deleted only after a durable snapshot no longer lists it. So a missing listed segment is
   * never a crash either, wherever it lies above log_number: the live one, or one in between
   * whose older neighbour waited for its flush (issue 31). A format_version 1 snapshot lists
   * none, and only log_number can be checked.
   */

  static final String REMEDY = " The store was not opened and nothing was deleted."
      + " Restore the directory from a backup, or in a cluster move it aside and let the node be"
      + " refilled from its replicas.";

  private SnapshotAccounting() {}

  /** Throws a CorruptionException saying what is unaccounted for, if anything is: the first of {@link #problems}. */
  static void check(Path directory, ManifestLoader.Loaded loaded, DirectoryListing listing) {
    List<CorruptionException> problems = problems(directory, loaded.fileNumber(), loaded.snapshot(), loaded.listsSegments(), listing);
    if (!problems.isEmpty()) throw problems.getFirst();
  }

  /**
   * Everything the snapshot of {@code MANIFEST-<manifestNumber>} fails to account for in the
   * directory, each as the exception opening would throw for it: every missing table, in the
   * snapshot's order, then a missing segment {@code log_number}, then (when the snapshot lists
   * its segments, format_version 2) every other listed segment that is missing. Empty when it
   * accounts for all.
   */
  public static List<CorruptionException> problems(
      Path directory, long manifestNumber, ManifestSnapshot snapshot, boolean listsSegments, DirectoryListing listing) {
    List<CorruptionException> problems = new ArrayList<>();
    Path manifest = directory.resolve(FileNames.manifest(manifestNumber));
    for (TableMeta t : snapshot.tables()) {
      if (!listing.tables().contains(t.fileNumber())) {
        problems.add(new CorruptionException(directory.resolve(FileNames.table(t.fileNumber())),
            "named by " + manifest.getFileName() + " but missing: a later manifest snapshot that"
                + " no longer named it was lost, or the file was removed." + REMEDY));
      }
    }
    CorruptionException logNumberMissing = logNumberProblem(directory, manifest, snapshot, listing);
    if (logNumberMissing != null) problems.add(logNumberMissing);
    if (listsSegments) {
      for (long segment : snapshot.segments()) {
        if (listing.logs().contains(segment) || (logNumberMissing != null && segment == snapshot.logNumber())) continue;
        problems.add(missingListedSegment(directory, manifest, segment));
      }
    }
    return problems;
  }

  // A listed segment (format_version 2) that is missing: reported after log_number's, whose
  // message can tell a lost commit from a removed file.
  private static CorruptionException missingListedSegment(Path directory, Path manifest, long segment) {
    return new CorruptionException(directory.resolve(FileNames.log(segment)), "listed by "
        + manifest.getFileName() + " as a log segment holding writes that are in no table, but"
        + " missing: the file was removed, or later snapshots that retired it were lost. Opening"
        + " without it would lose its writes (deleted keys would come back, overwritten values"
        + " reappear)." + REMEDY);
  }

  private static @Nullable CorruptionException logNumberProblem(
      Path directory, Path manifest, ManifestSnapshot snapshot, DirectoryListing listing) {
    long logNumber = snapshot.logNumber();
    if (logNumber == 0 || listing.logs().contains(logNumber) || namesNoSegment(snapshot, listing)) return null;
    List<Long> newer = newerUnaccounted(snapshot, listing);
    if (newer.isEmpty()) {
      return new CorruptionException(directory.resolve(FileNames.log(logNumber)), "named by "
          + manifest.getFileName() + " as the oldest log segment holding writes that are in no"
          + " table (log_number), but missing: the file was removed, or a later snapshot that"
          + " retired it was lost. Opening without it would lose its writes (deleted keys would"
          + " come back, overwritten values reappear)." + REMEDY);
    }
    return new CorruptionException(manifest, "its snapshot's log segment "
        + FileNames.log(logNumber) + " is missing while newer files it does not account for exist ("
        + describe(newer, listing) + "): a later snapshot, which retired that segment and named"
        + " those files, was lost (the manifest is damaged or truncated). Opening from this"
        + " snapshot would lose the writes in them." + REMEDY);
  }

  // A checkpoint's snapshot (docs/format.md, "Checkpoints"): log_number is next_file_number, no
  // segment was ever created for it, and none is in the directory. An engine's snapshot always
  // has log_number below next_file_number: the segment it names was numbered before it.
  private static boolean namesNoSegment(ManifestSnapshot snapshot, DirectoryListing listing) {
    return snapshot.logNumber() >= snapshot.nextFileNumber() && listing.logs().isEmpty();
  }

  // Log segments numbered above log_number, and tables above it that the snapshot does not name.
  private static List<Long> newerUnaccounted(ManifestSnapshot snapshot, DirectoryListing listing) {
    Set<Long> named = new HashSet<>();
    for (TableMeta t : snapshot.tables()) named.add(t.fileNumber());
    long logNumber = snapshot.logNumber();
    Set<Long> newer = new TreeSet<>(listing.logs().tailSet(logNumber + 1));
    for (long table : listing.tables().tailSet(logNumber + 1)) {
      if (!named.contains(table)) newer.add(table);
    }
    return List.copyOf(newer);
  }

  private static String describe(List<Long> numbers, DirectoryListing listing) {
    StringBuilder names = new StringBuilder();
    for (int i = 0; i < Math.min(numbers.size(), 5); i++) {
      long n = numbers.get(i);
      if (i > 0) names.append(", ");
      names.append(listing.logs().contains(n) ? FileNames.log(n) : FileNames.table(n));
    }
    if (numbers.size() > 5) names.append(" and ").append(numbers.size() - 5).append(" more");
    return names.toString();
  }
}
