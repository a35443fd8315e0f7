package dev.shale.storage.core;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.EngineHealth.Damage;
import dev.shale.storage.EngineHealth.DroppedBytes;
import dev.shale.storage.Vfs;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.io.RecordFormat;
import dev.shale.storage.io.RecordReader.TornTail;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedSet;
import org.jspecify.annotations.Nullable;

/**
 * Tells a torn tail of the logs being replayed, which recovery drops, from damage to acknowledged
 * records, which makes opening fail (docs/format.md, "Write-ahead log"). A crash can tear only
 * the end of the last non-empty segment: a segment's header is fsynced when it is created, and
 * the previous segment is fsynced when writes move to the next one. Of the tails recovery drops,
 * only one record cut short by the end of the file is what a crash leaves; any other is reported
 * as damage accepted ({@link #acceptedLoss}).
 *
 * <p>Public for the offline tools' verify ({@code dev.shale.storage.inspect}), which judges each
 * segment as opening does.
 */
public final class LogDamage {
  private final long lastNonEmptySegment;
  private final long lastSegment;
  private final Map<Long, Long> fileSizes; // of the segments replayed, by number
  private final Map<Long, Long> sealedSizes; // the manifest's, by segment number

  /**
   * @param lastNonEmptySegment the highest-numbered segment replayed that is longer than its
   *     header, or -1
   * @param lastSegment the highest-numbered segment replayed, or -1
   */
  private LogDamage(long lastNonEmptySegment, long lastSegment, Map<Long, Long> fileSizes, Map<Long, Long> sealedSizes) {
    this.lastNonEmptySegment = lastNonEmptySegment;
    this.lastSegment = lastSegment;
    this.fileSizes = fileSizes;
    this.sealedSizes = sealedSizes;
  }

  /**
   * The judge of {@code segments} (the numbers of the segments of {@code directory} being
   * replayed, ascending): the last of them, and the last longer than its header, the only one a
   * crash can tear; {@code sealedSizes} are the manifest's sizes of the segments writes left
   * (docs/format.md, "Manifest", sealed_size; none before format_version 3).
   */
  public static LogDamage forSegments(Vfs vfs, Path directory, SortedSet<Long> segments, Map<Long, Long> sealedSizes)
      throws IOException {
    long lastNonEmpty = -1;
    Map<Long, Long> fileSizes = new HashMap<>();
    for (long number : segments) {
      long size = vfs.size(directory.resolve(FileNames.log(number)));
      fileSizes.put(number, size);
      if (size > RecordFormat.HEADER_BYTES) lastNonEmpty = number;
    }
    return new LogDamage(lastNonEmpty, segments.isEmpty() ? -1 : segments.last(), fileSizes, Map.copyOf(sealedSizes));
  }

  /**
   * Throws if what ended segment {@code number}'s records is damage rather than a torn tail.
   *
   * @param tail the bad record that ended its records, or null if it ended cleanly
   * @param headerMissing whether the segment is shorter than its header or its header is zeros
   */
  public void check(Path file, long number, @Nullable TornTail tail, boolean headerMissing) {
    if (headerMissing && number < lastSegment) {
      throw refusal(file, "has no header, yet a later log segment exists (a segment's header is"
          + " fsynced before the next segment is created)",
          "To accept losing its records, delete the file and open again.");
    }
    checkSealedSize(file, number);
    if (tail == null) return;
    if (tail.followedByValidRecords()) {
      throw refusal(file, "has a bad record (" + tail.reason() + ") at offset " + tail.offset()
          + " followed by " + tail.validRecordsAfter() + " valid records from offset "
          + tail.nextValidOffset() + ": not a torn write", truncateAt(tail));
    }
    if (number < lastNonEmptySegment) {
      throw refusal(file, "has a bad record (" + tail.reason() + ") at offset " + tail.offset()
          + ", but a later log segment holds records: only the last one can have a torn tail",
          truncateAt(tail));
    }
  }

  // docs/format.md, "Recovery at open", step 2: a segment writes left was forced before the first
  // write to the next, so while a later segment holds records it must be exactly as long as it
  // was then. Cut at a record boundary, it would read as a log that ended cleanly.
  private void checkSealedSize(Path file, long number) {
    Long sealed = sealedSizes.get(number);
    if (sealed == null || number >= lastNonEmptySegment) return;
    long size = fileSizes.getOrDefault(number, -1L);
    if (size == sealed) return;
    String what = size < sealed
        ? "is " + size + " bytes long, but was " + sealed + " when writes moved to the next segment (the"
            + " manifest's sealed_size), and a later segment holds records: " + (sealed - size)
            + " bytes of records were cut off its end"
        : "is " + size + " bytes long, but was " + sealed + " when writes moved to the next segment (the"
            + " manifest's sealed_size): " + (size - sealed) + " bytes were added after its last record";
    throw refusal(file, what, size < sealed
        ? "Nothing in the directory holds the records that were cut off."
        : "To accept dropping the added bytes, truncate the file to " + sealed + " bytes and open again.");
  }

  /**
   * The damage to report for the tail recovery drops from segment {@code file} (once
   * {@link #check} accepted it), or null when there is none or it is a torn append: one record
   * cut short by the end of the file, a write that never completed. Any other tail (a whole
   * record failing its crc, zeros, a length no writer produces) was left by damage, or by a power
   * loss that kept the file's size but not its bytes, and may have held any number of
   * acknowledged records: nothing valid follows it, so there is nothing to keep, but an operator
   * must be able to tell (issue 31: a zeroed half of a log, some 1,000 acknowledged records, went
   * by with one WARNING line).
   */
  public static @Nullable Damage acceptedLoss(Path file, @Nullable TornTail tail) {
    if (tail == null || tail.cutShort()) return null;
    return new Damage(file, "log tail dropped at open: " + tail.droppedBytes() + " bytes from offset "
        + tail.offset() + " (" + tail.reason() + ") are not one record cut short by the end of the"
        + " file, as a crash leaves, so acknowledged records in them may be lost",
        "the store opened without them and cut them off the segment; in a cluster, repair brings"
        + " the lost records back from the other replicas; a single node can restore them from a"
        + " backup. Reported until the node restarts",
        new DroppedBytes(tail.offset(), tail.droppedBytes()));
  }

  private static String truncateAt(TornTail tail) {
    return "To accept losing the records from offset " + tail.offset() + " on, truncate the file"
        + " to " + tail.offset() + " bytes and open again.";
  }

  private static CorruptionException refusal(Path file, String problem, String lossyRemedy) {
    return new CorruptionException(file, "log segment " + problem + ". Acknowledged writes may"
        + " be lost, so the store was not opened and nothing was deleted. Restore the directory"
        + " from a backup, or in a cluster move it aside and let the node be refilled from its"
        + " replicas. " + lossyRemedy);
  }
}
