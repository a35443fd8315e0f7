package dev.shale.load;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * A run's result in wrk2's text layout (its {@code -L} output), so scripts and eyes used to
 * wrk2 read it as they read wrk2's: the same lines, units and widths (wrk's print_units).
 * Latencies are kept in microseconds like wrk2's histogram.
 */
public final class Wrk2Format {
  static final double[] PERCENTILES = {50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0};

  private Wrk2Format() {}

  public static String format(LoadResult result) {
    return header(result.spec()) + results(result);
  }

  /** The lines wrk2 prints before it runs: what, where, how many connections, at what rate. */
  public static String header(LoadSpec spec) {
    return String.format(Locale.ROOT, "Running %s test @ %s%n", seconds(spec.duration().toNanos()), spec.url())
        + String.format(Locale.ROOT, "  %d threads and %d connections%n", spec.threads(), spec.connections())
        + String.format(Locale.ROOT, "  %s at %s requests/s, warmup %s (not recorded)%n",
            spec.workload().cliName(), number(spec.rate()), seconds(spec.warmup().toNanos()));
  }

  /** What the run measured, in the lines wrk2 prints after its header. */
  public static String results(LoadResult result) {
    StringBuilder out = new StringBuilder();
    threadStats(out, result);
    latencyDistribution(out, result.latencyMicros());
    summary(out, result);
    latencyBySecond(out, result);
    return out.toString();
  }

  /**
   * The latency second by second (not in wrk2's layout, after it): where a stall happened and how
   * long it lasted; a second's answers are those that arrived in it.
   */
  static void latencyBySecond(StringBuilder out, LoadResult result) {
    if (result.latencyBySecond().isEmpty()) return;
    out.append("Latency by second (answers that arrived in it):\n");
    out.append(String.format(Locale.ROOT, "  %6s %9s %10s %10s %10s%n", "second", "answers", "p50", "p99", "max"));
    for (LatencyTimeline.Second s : result.latencyBySecond()) {
      out.append(String.format(Locale.ROOT, "  %6d %9d", s.second() + 1, s.answers()))
          .append(units(s.p50Micros(), TIME, 11)).append(units(s.p99Micros(), TIME, 11))
          .append(units(s.maxMicros(), TIME, 11)).append('\n');
    }
  }

  private static void threadStats(StringBuilder out, LoadResult result) {
    Histogram h = result.latencyMicros();
    out.append(String.format(Locale.ROOT, "  Thread Stats%6s%11s%8s%12s%n", "Avg", "Stdev", "Max", "+/- Stdev"));
    out.append(String.format(Locale.ROOT, "    %-10s", "Latency"));
    out.append(units(h.getMean(), TIME)).append(units(h.getStdDeviation(), TIME, 10))
        .append(units(h.getMaxValue(), TIME, 9));
    out.append(String.format(Locale.ROOT, "%8.2f%%%n", withinStdevPercent(h)));
    double[] perThread = result.answersPerSecondByThread().stream().flatMapToLong(java.util.Arrays::stream)
        .asDoubleStream().toArray();
    Stats reqs = Stats.of(perThread);
    out.append(String.format(Locale.ROOT, "    %-10s", "Req/Sec"));
    out.append(units(reqs.mean, METRIC)).append(units(reqs.stdev, METRIC, 10)).append(units(reqs.max, METRIC, 9));
    out.append(String.format(Locale.ROOT, "%8.2f%%%n", reqs.withinStdevPercent));
  }

  private static void latencyDistribution(StringBuilder out, Histogram h) {
    out.append("  Latency Distribution (HdrHistogram - Recorded Latency)\n");
    for (double p : PERCENTILES) {
      out.append(String.format(Locale.ROOT, "%7.3f%%", p)).append(units(h.getValueAtPercentile(p), TIME, 10)).append('\n');
    }
    out.append("\n  Detailed Percentile spectrum:\n");
    out.append(spectrum(h));
    out.append("----------------------------------------------------------\n");
  }

  /** HdrHistogram's percentile distribution in milliseconds (the .hgrm file's content). */
  public static String spectrum(Histogram h) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream print = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      h.outputPercentileDistribution(print, 5, 1000.0);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static void summary(StringBuilder out, LoadResult r) {
    out.append(String.format(Locale.ROOT, "  %d requests in %s, %sB read%n", r.requests(), seconds(r.measured().toNanos()),
        units(r.bytesRead(), BYTES).trim()));
    LoadResult.SocketErrors e = r.socketErrors();
    if (e.total() > 0) {
      out.append(String.format(Locale.ROOT, "  Socket errors: connect %d, read %d, write %d, timeout %d%n",
          e.connect(), e.read(), e.write(), e.timeout()));
    }
    long bad = r.non2xx3xx();
    if (bad > 0) out.append(String.format(Locale.ROOT, "  Non-2xx or 3xx responses: %d%n", bad));
    for (Map.Entry<Integer, Long> status : r.statuses().entrySet()) {
      out.append(String.format(Locale.ROOT, "  Status %d: %d%n", status.getKey(), status.getValue()));
    }
    if (r.unsent() > 0) {
      out.append(String.format(Locale.ROOT, "  Behind schedule: %d requests due in the interval were never sent%n", r.unsent()));
    }
    out.append(String.format(Locale.ROOT, "Requests/sec: %9.2f%n", r.achievedRate()));
    out.append(String.format(Locale.ROOT, "Transfer/sec: %10sB%n", units(r.bytesRead() / r.seconds(), BYTES).trim()));
    out.append(String.format(Locale.ROOT, "Generator CPU: %.2f us/request (%.1f%% of one core)%n",
        r.generatorCpuMicrosPerRequest(), r.generatorCpuPercentOfCore()));
  }

  /** wrk's units: a value's unit table, the base between steps and the largest step. */
  record Units(String[] names, double[] bases) {}

  static final Units TIME = new Units(new String[] {"us", "ms", "s", "m", "h"}, new double[] {1000, 1000, 60, 60});
  private static final Units METRIC = new Units(new String[] {"", "k", "M", "G", "T", "P"}, new double[] {1000, 1000, 1000, 1000, 1000});
  private static final Units BYTES = new Units(new String[] {"", "K", "M", "G", "T", "P"}, new double[] {1024, 1024, 1024, 1024, 1024});

  /** wrk's format_units: "%.2f" and the largest unit that keeps the value at least 1. */
  static String unitText(double value, Units units) {
    int i = 0;
    while (i < units.bases.length && value >= units.bases[i]) {
      value /= units.bases[i];
      i++;
    }
    return String.format(Locale.ROOT, "%.2f%s", value, units.names[i]);
  }

  private static String units(double value, Units units) {
    return units(value, units, 8);
  }

  /** wrk's print_units: right-aligned in {@code width} less the pad the unit's letters take. */
  static String units(double value, Units units, int width) {
    String text = unitText(value, units);
    int len = text.length();
    int pad = 2;
    if (Character.isLetter(text.charAt(len - 1))) pad--;
    if (len > 1 && Character.isLetter(text.charAt(len - 2))) pad--;
    int w = width - pad;
    String shown = text.length() > w ? text.substring(0, w) : text;
    return " ".repeat(w - shown.length()) + shown + "  ".substring(0, pad);
  }

  static String latencyText(double micros) {
    return unitText(micros, TIME);
  }

  private static String seconds(long nanos) {
    return unitText(nanos / 1e3, TIME);
  }

  private static String number(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.2f", value);
  }

  private static double withinStdevPercent(Histogram h) {
    if (h.getTotalCount() == 0) return 0;
    double mean = h.getMean();
    double stdev = h.getStdDeviation();
    long within = 0;
    for (var v : h.recordedValues()) {
      if (Math.abs(v.getValueIteratedTo() - mean) <= stdev) within += v.getCountAtValueIteratedTo();
    }
    return 100.0 * within / h.getTotalCount();
  }

  private record Stats(double mean, double stdev, double max, double withinStdevPercent) {
    static Stats of(double[] samples) {
      if (samples.length == 0) return new Stats(0, 0, 0, 0);
      double sum = 0;
      double max = 0;
      for (double s : samples) {
        sum += s;
        max = Math.max(max, s);
      }
      double mean = sum / samples.length;
      double squares = 0;
      for (double s : samples) squares += (s - mean) * (s - mean);
      double stdev = samples.length > 1 ? Math.sqrt(squares / (samples.length - 1)) : 0;
      long within = 0;
      for (double s : samples) if (Math.abs(s - mean) <= stdev) within++;
      return new Stats(mean, stdev, max, 100.0 * within / samples.length);
    }
  }
}
