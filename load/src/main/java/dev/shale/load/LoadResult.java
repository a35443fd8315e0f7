package dev.shale.load;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What a run measured, over its measured interval only.
 *
 * @param latencyMicros latency, from its due time, of every answer that arrived in the interval
 *     or was due in it: a stall at either edge of the interval shows
 * @param answered answers that arrived during the interval (what "Requests/sec" divides, as in
 *     wrk2); fewer than {@link #requests} by the answers due in the interval that came after it
 * @param statuses the answers recorded (those of {@code latencyMicros}) by HTTP status
 * @param unsent requests due in the interval that were never sent: the run ended while the
 *     connection was still behind its schedule
 * @param answersPerSecondByThread per event-loop thread, answers in each second of the interval
 * @param latencyBySecond each second of the interval: the answers that arrived in it, and their
 *     latency's p50, p99 and maximum (a stall shows in the second it ended)
 * @param generatorCpuNanos CPU time this process used during the interval (all its threads)
 */
public record LoadResult(
    LoadSpec spec,
    Histogram latencyMicros,
    long answered,
    long bytesRead,
    Duration measured,
    Map<Integer, Long> statuses,
    SocketErrors socketErrors,
    long unsent,
    List<long[]> answersPerSecondByThread,
    List<LatencyTimeline.Second> latencyBySecond,
    long generatorCpuNanos) {

  /** wrk's socket error counts; {@code timeout}: requests still unanswered when the run gave up. */
  public record SocketErrors(long connect, long read, long write, long timeout) {
    public long total() {
      return connect + read + write + timeout;
    }
  }

  /**
   * The answers recorded, whatever their status: the sum of {@link #statuses}, and the count of
   * {@link #latencyMicros}. The total a report prints beside the status counts, so that they add
   * up; it includes the answers due in the interval that arrived after its end.
   */
  public long requests() {
    return statuses.values().stream().mapToLong(Long::longValue).sum();
  }

  public double achievedRate() {
    return answered / seconds();
  }

  public double seconds() {
    return measured.toNanos() / 1e9;
  }

  /** Answers whose status is not 2xx or 3xx. */
  public long non2xx3xx() {
    return statuses.entrySet().stream()
        .filter(e -> e.getKey() < 200 || e.getKey() >= 400)
        .mapToLong(Map.Entry::getValue).sum();
  }

  /** The generator's own CPU per answered request, in microseconds. */
  public double generatorCpuMicrosPerRequest() {
    return answered == 0 ? Double.NaN : generatorCpuNanos / 1e3 / answered;
  }

  /** The generator's CPU over the interval as a share of one core, in percent. */
  public double generatorCpuPercentOfCore() {
    return 100.0 * generatorCpuNanos / measured.toNanos();
  }

  public long percentileMicros(double percentile) {
    return latencyMicros.getValueAtPercentile(percentile);
  }
}
