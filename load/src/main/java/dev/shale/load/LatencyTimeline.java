package dev.shale.load;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.IntCountsHistogram;
import org.jspecify.annotations.Nullable;

/**
 * Latency second by second over the measured interval: for each second, the answers that
 * arrived in it and their p50, p99 and maximum (from each request's due time, as the overall
 * histogram). Where a run's p99 comes from a few stalls, this shows when they happened and how
 * long each lasted, which one histogram of the whole interval cannot.
 *
 * <p>One per event-loop thread, shared by that loop's connections (confined to it while the run
 * goes, read after it ended): a histogram a second is 13 KiB at the 2 significant digits this
 * view needs, too much to keep per connection.
 */
final class LatencyTimeline {
  /** One second of the interval: answers that arrived in it, and their latencies in microseconds. */
  record Second(int second, long answers, long p50Micros, long p99Micros, long maxMicros) {}

  private static final int SIGNIFICANT_DIGITS = 2;

  private final @Nullable IntCountsHistogram[] seconds; // null: no answer arrived in that second

  LatencyTimeline(int seconds) {
    this.seconds = new IntCountsHistogram[Math.max(1, seconds)];
  }

  /** An answer that arrived {@code sinceWindowStartNanos} into the interval, {@code micros} after it was due. */
  void record(long sinceWindowStartNanos, long micros) {
    int second = (int) (sinceWindowStartNanos / 1_000_000_000L);
    if (second < 0 || second >= seconds.length) return;
    IntCountsHistogram h = seconds[second];
    if (h == null) h = seconds[second] = new IntCountsHistogram(Recorder.HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    h.recordValue(Math.min(Math.max(0, micros), Recorder.HIGHEST_MICROS));
  }

  /** Adds {@code other}'s seconds into this one's (after the run). */
  void add(LatencyTimeline other) {
    for (int s = 0; s < seconds.length && s < other.seconds.length; s++) {
      IntCountsHistogram theirs = other.seconds[s];
      if (theirs == null) continue;
      if (seconds[s] == null) seconds[s] = new IntCountsHistogram(Recorder.HIGHEST_MICROS, SIGNIFICANT_DIGITS);
      seconds[s].add(theirs);
    }
  }

  /** Every second of the interval, in order (a second without answers has 0 of everything). */
  List<Second> seconds() {
    List<Second> out = new ArrayList<>(seconds.length);
    for (int s = 0; s < seconds.length; s++) {
      IntCountsHistogram h = seconds[s];
      out.add(h == null
          ? new Second(s, 0, 0, 0, 0)
          : new Second(s, h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getMaxValue()));
    }
    return out;
  }
}
