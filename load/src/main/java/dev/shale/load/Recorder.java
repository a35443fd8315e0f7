package dev.shale.load;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one connection saw during the measured interval: latencies (microseconds, from each
 * request's intended send time), answers by status, socket errors, bytes read, and answers per
 * second of the interval (for wrk2's Req/Sec line).
 *
 * <p>Confined to the connection's event loop while the run goes; read after it ended.
 */
final class Recorder {
  /** Latencies above an hour are clamped: the histogram's range. */
  static final long HIGHEST_MICROS = 3_600_000_000L;
  static final int SIGNIFICANT_DIGITS = 3;

  final Histogram latencyMicros = newHistogram();
  final long[] statusCounts = new long[600];
  final long[] answersPerSecond;
  /** The connection's event loop's, shared with the other connections on that loop. */
  final LatencyTimeline timeline;
  long answeredInWindow;
  long bytesRead;
  long connectErrors;
  long readErrors;
  long writeErrors;
  long timeouts;
  /** Requests whose send time came in the measured interval but were never sent: the run ended first. */
  long unsent;

  Recorder(int seconds, LatencyTimeline timeline) {
    this.answersPerSecond = new long[Math.max(1, seconds)];
    this.timeline = timeline;
  }

  static Histogram newHistogram() {
    return new Histogram(HIGHEST_MICROS, SIGNIFICANT_DIGITS);
  }

  void recordLatency(long micros) {
    latencyMicros.recordValue(Math.min(Math.max(0, micros), HIGHEST_MICROS));
  }

  void recordStatus(int status) {
    statusCounts[status >= 100 && status < 600 ? status : 0]++;
  }

  /** An answer that arrived in the interval, {@code latencyMicros} after it was due. */
  void countAnswer(long sinceWindowStartNanos, long latencyMicros) {
    timeline.record(sinceWindowStartNanos, latencyMicros);
    answeredInWindow++;
    int second = (int) (sinceWindowStartNanos / 1_000_000_000L);
    if (second < answersPerSecond.length) answersPerSecond[second]++;
  }

  /** Adds {@code other} into this one (after the run); timelines are merged on their own. */
  void add(Recorder other) {
    latencyMicros.add(other.latencyMicros);
    for (int i = 0; i < statusCounts.length; i++) statusCounts[i] += other.statusCounts[i];
    for (int i = 0; i < answersPerSecond.length && i < other.answersPerSecond.length; i++) {
      answersPerSecond[i] += other.answersPerSecond[i];
    }
    answeredInWindow += other.answeredInWindow;
    bytesRead += other.bytesRead;
    connectErrors += other.connectErrors;
    readErrors += other.readErrors;
    writeErrors += other.writeErrors;
    timeouts += other.timeouts;
    unsent += other.unsent;
  }

  Map<Integer, Long> statuses() {
    Map<Integer, Long> statuses = new TreeMap<>();
    for (int i = 0; i < statusCounts.length; i++) {
      if (statusCounts[i] != 0) statuses.put(i, statusCounts[i]);
    }
    return statuses;
  }
}
