package dev.shale.cluster.handoff;

import org.jspecify.annotations.Nullable;

/**
 * How far a node got in pulling one of its gained ranges (the keys it gains whose replicas
 * before the change are {@code sources}): for status pages and for resuming.
 *
 * @param sources the range's replica set before the change: ids sorted and joined with commas
 * @param done every key of the range is written locally
 * @param records records pulled and written so far
 * @param bytes key and value bytes pulled and written so far
 * @param lastKey the highest key written, null before the first
 */
public record RangeProgress(String sources, boolean done, long records, long bytes, byte @Nullable [] lastKey) {
  /** For log lines: "done, 120 records, 9000 bytes". */
  public String describe() {
    return (done ? "done" : "open") + ", " + records + " records, " + bytes + " bytes";
  }

  static RangeProgress start(String sources) {
    return new RangeProgress(sources, false, 0, 0, null);
  }

  RangeProgress advance(byte[] key, long moreRecords, long moreBytes) {
    return new RangeProgress(sources, done, records + moreRecords, bytes + moreBytes, key);
  }

  RangeProgress finish() {
    return new RangeProgress(sources, true, records, bytes, lastKey);
  }
}
