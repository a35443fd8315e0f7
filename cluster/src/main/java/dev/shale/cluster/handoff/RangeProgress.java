package dev.shale.cluster.handoff;

import org.jspecify.annotations.Nullable;

/**
 * How far a node got in one pull of the ranges it gains ({@link PullUnit}): for status pages and
 * for resuming.
 *
 * @param name the pull's name ({@link PullUnit#name}, or a part of a failed-over one)
 * @param done every key of the range is written locally
 * @param records records pulled and written so far
 * @param bytes key and value bytes pulled and written so far
 * @param lastKey the highest key written, null before the first
 */
public record RangeProgress(String name, boolean done, long records, long bytes, byte @Nullable [] lastKey) {
  /** For log lines: "done, 120 records, 9000 bytes". */
  public String describe() {
    return (done ? "done" : "open") + ", " + records + " records, " + bytes + " bytes";
  }

  static RangeProgress start(String name) {
    return new RangeProgress(name, false, 0, 0, null);
  }

  RangeProgress advance(byte[] key, long moreRecords, long moreBytes) {
    return new RangeProgress(name, done, records + moreRecords, bytes + moreBytes, key);
  }

  RangeProgress finish() {
    return new RangeProgress(name, true, records, bytes, lastKey);
  }
}
