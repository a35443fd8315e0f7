package dev.shale.storage.core;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.io.RecordReader.TornTail;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Tells a torn tail of the logs being replayed, which recovery drops, from damage to acknowledged
 * records, which makes opening fail (docs/format.md, "Write-ahead log"). A crash can tear only
 * the end of the last non-empty segment: a segment's header is fsynced when it is created, and
 * the previous segment is fsynced when writes move to the next one.
 */
final class LogDamage {
  private final long lastNonEmptySegment;
  private final long lastSegment;

  /**
   * @param lastNonEmptySegment the highest-numbered segment replayed that is longer than its
   *     header, or -1
   * @param lastSegment the highest-numbered segment replayed, or -1
   */
  LogDamage(long lastNonEmptySegment, long lastSegment) {
    this.lastNonEmptySegment = lastNonEmptySegment;
    this.lastSegment = lastSegment;
  }

  /**
   * Throws if what ended segment {@code number}'s records is damage rather than a torn tail.
   *
   * @param tail the bad record that ended its records, or null if it ended cleanly
   * @param headerMissing whether the segment is shorter than its header or its header is zeros
   */
  void check(Path file, long number, @Nullable TornTail tail, boolean headerMissing) {
    if (headerMissing && number < lastSegment) {
      throw refusal(file, "has no header, yet a later log segment exists (a segment's header is"
          + " fsynced before the next segment is created)",
          "To accept losing its records, delete the file and open again.");
    }
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
