package dev.shale.load;

import java.util.List;
import java.util.Locale;

/** The table of every rate a search tried, as text (the console) and as Markdown (reports). */
public final class KneeTable {
  static final String HEADER = String.format(Locale.ROOT, "%10s %10s %10s %10s %10s %10s  %s",
      "target", "achieved", "p50", "p99", "p99.9", "max", "stable?");

  private KneeTable() {}

  public static String row(KneeSearch.Trial t) {
    LoadResult r = t.result();
    return String.format(Locale.ROOT, "%10.0f %10.1f %10s %10s %10s %10s  %s", t.target(), r.achievedRate(),
        Wrk2Format.latencyText(r.percentileMicros(50)), Wrk2Format.latencyText(r.percentileMicros(99)),
        Wrk2Format.latencyText(r.percentileMicros(99.9)), Wrk2Format.latencyText(r.latencyMicros().getMaxValue()),
        t.stable() ? "yes" : "no (" + t.reason() + ")");
  }

  public static String text(List<KneeSearch.Trial> trials) {
    StringBuilder out = new StringBuilder(HEADER).append('\n');
    for (KneeSearch.Trial t : trials) out.append(row(t)).append('\n');
    return out.toString();
  }

  public static String markdown(List<KneeSearch.Trial> trials) {
    StringBuilder out = new StringBuilder("| target req/s | achieved req/s | p50 | p99 | p99.9 | max | stable? |\n");
    out.append("| ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (KneeSearch.Trial t : trials) {
      LoadResult r = t.result();
      out.append(String.format(Locale.ROOT, "| %.0f | %.1f | %s | %s | %s | %s | %s |%n", t.target(), r.achievedRate(),
          Wrk2Format.latencyText(r.percentileMicros(50)), Wrk2Format.latencyText(r.percentileMicros(99)),
          Wrk2Format.latencyText(r.percentileMicros(99.9)), Wrk2Format.latencyText(r.latencyMicros().getMaxValue()),
          t.stable() ? "yes" : "no (" + t.reason() + ")"));
    }
    return out.toString();
  }
}
