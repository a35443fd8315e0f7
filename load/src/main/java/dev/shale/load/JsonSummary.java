package dev.shale.load;

import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** A run's result as one JSON object, for scripts: rates, latency percentiles in us, counts. */
public final class JsonSummary {
  private JsonSummary() {}

  public static String of(LoadResult r) {
    LoadSpec spec = r.spec();
    StringJoiner statuses = new StringJoiner(", ", "{", "}");
    for (Map.Entry<Integer, Long> e : r.statuses().entrySet()) statuses.add("\"" + e.getKey() + "\": " + e.getValue());
    LoadResult.SocketErrors errors = r.socketErrors();
    StringBuilder json = new StringBuilder("{\n");
    field(json, "url", quote(spec.url().toString()));
    field(json, "workload", quote(spec.workload().cliName()));
    field(json, "connections", spec.connections());
    field(json, "threads", spec.threads());
    field(json, "value_size_bytes", spec.valueSizeBytes());
    field(json, "duration_seconds", number(r.seconds()));
    field(json, "warmup_seconds", number(spec.warmup().toNanos() / 1e9));
    field(json, "rate", number(spec.rate()));
    field(json, "achieved", number(r.achievedRate()));
    field(json, "requests", r.requests());
    field(json, "bytes_read", r.bytesRead());
    for (double p : Wrk2Format.PERCENTILES) {
      field(json, "p" + percentileName(p) + "_us", r.percentileMicros(p));
    }
    field(json, "mean_us", number(r.latencyMicros().getMean()));
    field(json, "status_counts", statuses.toString());
    field(json, "non_2xx_3xx", r.non2xx3xx());
    field(json, "socket_errors", String.format(Locale.ROOT, "{\"connect\": %d, \"read\": %d, \"write\": %d, \"timeout\": %d}",
        errors.connect(), errors.read(), errors.write(), errors.timeout()));
    field(json, "unsent", r.unsent());
    StringJoiner bySecond = new StringJoiner(", ", "[", "]");
    for (LatencyTimeline.Second s : r.latencyBySecond()) {
      bySecond.add(String.format(Locale.ROOT, "{\"second\": %d, \"answers\": %d, \"p50_us\": %d, \"p99_us\": %d, \"max_us\": %d}",
          s.second() + 1, s.answers(), s.p50Micros(), s.p99Micros(), s.maxMicros()));
    }
    field(json, "latency_by_second", bySecond.toString());
    field(json, "generator_cpu_us_per_request", number(r.generatorCpuMicrosPerRequest()));
    json.append("  \"generator_cpu_percent_of_core\": ").append(number(r.generatorCpuPercentOfCore())).append("\n}\n");
    return json.toString();
  }

  /** 50 -> "50", 99.9 -> "99_9", 100 -> "100". */
  static String percentileName(double p) {
    String s = (p == Math.rint(p)) ? Long.toString((long) p) : Double.toString(p);
    return s.replace('.', '_');
  }

  private static void field(StringBuilder json, String name, Object value) {
    json.append("  \"").append(name).append("\": ").append(value).append(",\n");
  }

  private static String number(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "null";
  }

  static String quote(String s) {
    StringBuilder q = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> q.append("\\\"");
        case '\\' -> q.append("\\\\");
        default -> {
          if (c < 0x20) q.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          else q.append(c);
        }
      }
    }
    return q.append('"').toString();
  }
}
