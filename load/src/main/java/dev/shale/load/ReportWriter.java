package dev.shale.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/** Writes report.md and its plots from a report's outcomes. */
final class ReportWriter {
  private ReportWriter() {}

  /** The node's URL and, when it runs on this host, its CPUs and command line (its JVM flags matter). */
  private static String nodeDescription(LoadSpec base) {
    try {
      long pid = NodeStatus.pid(base);
      return base.url() + ", pid " + pid + ", CPUs " + Environment.cpusAllowed(Long.toString(pid)) + ": `"
          + Environment.commandLine(pid).replace("`", "'") + "`";
    } catch (LoadException e) {
      return base.url().toString();
    }
  }

  /**
   * {@code base}: the settings every scenario shares; {@code single} and {@code cluster}: the
   * node of the single-node scenarios and the cluster's node the cluster scenarios go through,
   * null when they were not run.
   */
  static void write(Path dir, Environment env, String method, LoadSpec base, @Nullable LoadSpec single,
      @Nullable LoadSpec cluster, List<ReportCommand.Outcome> outcomes, List<ReportCommand.Outcome> ceiling,
      List<ProfileEvent> events, boolean quick) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Shale performance report, ").append(env.date().toString(), 0, 10).append(quick ? " (quick smoke run)" : "").append("\n\n");
    if (quick) {
      md.append("""
          > A `--quick` run: short intervals and a coarse search. Its rates show the tool works; they are not
          > stable rates in PERFORMANCE.md's sense (30 s or more measured).

          """);
    }
    environment(md, env, base, single, cluster, method);
    stableRates(md, outcomes, ceiling);
    latencies(md, outcomes);
    plots(md, dir, outcomes, ceiling);
    flameGraphs(md, dir, outcomes, events);
    trials(md, outcomes, ceiling);
    skipped(md, single != null, cluster != null);
    Files.writeString(dir.resolve("report.md"), md.toString());
  }

  private static void environment(StringBuilder md, Environment env, LoadSpec base, @Nullable LoadSpec single,
      @Nullable LoadSpec cluster, String method) {
    md.append("## Environment\n\n");
    md.append("| | |\n| --- | --- |\n");
    row(md, "date", env.date().toString());
    row(md, "commit", "`" + env.commit() + "`");
    row(md, "nproc", Integer.toString(env.nproc()));
    row(md, "CPU", env.cpuModel());
    row(md, "kernel", env.kernel());
    row(md, "generator JVM", env.jvm());
    row(md, "generator", "`shale load`, " + EventLoops.transport() + ", " + base.threads() + " event-loop thread(s); CPUs "
        + Environment.cpusAllowed("self"));
    if (single != null) row(md, "node", nodeDescription(single));
    if (cluster != null) row(md, "cluster node (the load goes through it)", nodeDescription(cluster));
    row(md, "method", method);
    row(md, "stable", "achieved >= 99% of target, p99 <= 10 ms, no socket errors or 5xx, over the whole measured interval");
    md.append('\n');
  }

  private static void row(StringBuilder md, String name, String value) {
    md.append("| ").append(name).append(" | ").append(value.replace("|", "\\|")).append(" |\n");
  }

  private static void stableRates(StringBuilder md, List<ReportCommand.Outcome> outcomes, List<ReportCommand.Outcome> ceiling) {
    md.append("## Stable rates\n\n| scenario | stable rate, req/s | fraction of the nginx ceiling at the same connections |\n| --- | ---: | ---: |\n");
    for (ReportCommand.Outcome o : outcomes) {
      md.append("| ").append(o.scenario().name()).append(" | ").append(rate(o.knee())).append(" | ")
          .append(fraction(o, ceiling)).append(" |\n");
    }
    for (ReportCommand.Outcome o : ceiling) {
      md.append("| ").append(o.scenario().name()).append(" | ").append(rate(o.knee())).append(" | (the ceiling) |\n");
    }
    if (ceiling.isEmpty()) md.append("\nThe nginx ceiling was not measured (nginx unavailable or `--no-nginx`).\n");
    md.append('\n');
  }

  private static String rate(KneeSearch.Knee knee) {
    if (knee.stableRate() == 0) return "none stable";
    return String.format(Locale.ROOT, "%.0f%s", knee.stableRate(), knee.reachedMax() ? " (max tried)" : "");
  }

  private static String fraction(ReportCommand.Outcome o, List<ReportCommand.Outcome> ceiling) {
    Optional<ReportCommand.Outcome> peer = ceiling.stream()
        .filter(c -> c.scenario().connections() == o.scenario().connections()).findFirst();
    if (peer.isEmpty() || peer.get().knee().stableRate() == 0 || o.knee().stableRate() == 0) return "-";
    return String.format(Locale.ROOT, "%.0f%%", 100 * o.knee().stableRate() / peer.get().knee().stableRate());
  }

  private static void latencies(StringBuilder md, List<ReportCommand.Outcome> outcomes) {
    md.append("## Latency at the stable rate\n\n| scenario | rate | p50 | p75 | p90 | p99 | p99.9 | p99.99 | max |\n")
        .append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (ReportCommand.Outcome o : outcomes) {
      Histogram h = o.atStableRate();
      if (h == null) continue;
      md.append(String.format(Locale.ROOT, "| %s | %.0f |", o.scenario().name(), o.knee().stableRate()));
      for (double p : new double[] {50, 75, 90, 99, 99.9, 99.99, 100}) {
        md.append(' ').append(Wrk2Format.latencyText(h.getValueAtPercentile(p))).append(" |");
      }
      md.append('\n');
    }
    md.append('\n');
  }

  private static void plots(StringBuilder md, Path dir, List<ReportCommand.Outcome> outcomes,
      List<ReportCommand.Outcome> ceiling) throws IOException {
    md.append("## Plots\n\n");
    Map<String, Histogram> spectra = new LinkedHashMap<>();
    for (ReportCommand.Outcome o : outcomes) {
      if (o.atStableRate() != null) spectra.put(o.scenario().name(), o.atStableRate());
    }
    if (!spectra.isEmpty()) {
      Plots.spectrum("Latency spectrum at each stable rate", spectra, dir.resolve("spectrum.png"));
      md.append("Latency by percentile at each scenario's stable rate:\n\n![latency spectrum](spectrum.png)\n\n");
    }
    for (ReportCommand.Outcome o : concat(outcomes, ceiling)) {
      String png = o.scenario().id() + "-knee.png";
      Plots.latencyVsRate(o.scenario().name() + ": latency vs rate", o.knee().trials(), StableRate.DEFAULT.p99Bound(),
          dir.resolve(png));
      md.append("### ").append(o.scenario().name()).append("\n\n![latency vs rate](").append(png).append(")\n\n");
      java.util.Optional<KneeSearch.Trial> lowestUnstable = o.knee().lowestUnstable();
      if (lowestUnstable.isPresent()) {
        KneeSearch.Trial unstable = lowestUnstable.get();
        String timeline = o.scenario().id() + "-timeline.png";
        Plots.lowestUnstableTimeline(o.scenario().name(), unstable, dir.resolve(timeline));
        md.append(String.format(java.util.Locale.ROOT,
            "Second by second at %.0f requests/s, the lowest rate tried that was not stable (%s):%n%n", unstable.target(),
            unstable.reason()));
        md.append("![latency by second](").append(timeline).append(")\n\n");
      }
    }
  }

  private static void flameGraphs(StringBuilder md, Path dir, List<ReportCommand.Outcome> outcomes, List<ProfileEvent> events) {
    md.append("## Flame graphs (async-profiler, the node, at the stable rate)\n\n");
    if (events.isEmpty()) {
      md.append("Not profiled (`--profile` empty).\n\n");
      return;
    }
    for (ReportCommand.Outcome o : outcomes) {
      md.append("- ").append(o.scenario().name()).append(": ");
      if (o.flameGraphs().isEmpty()) md.append("none");
      StringBuilder links = new StringBuilder();
      for (Map.Entry<String, Path> f : o.flameGraphs().entrySet()) {
        if (!links.isEmpty()) links.append(", ");
        links.append('[').append(f.getKey()).append("](").append(dir.relativize(f.getValue())).append(')');
      }
      md.append(links);
      for (String note : o.notes()) md.append("; ").append(note);
      md.append('\n');
    }
    md.append('\n');
  }

  private static void trials(StringBuilder md, List<ReportCommand.Outcome> outcomes, List<ReportCommand.Outcome> ceiling) {
    md.append("## Every rate tried\n\n");
    for (ReportCommand.Outcome o : concat(outcomes, ceiling)) {
      md.append("### ").append(o.scenario().name()).append("\n\n").append(KneeTable.markdown(o.knee().byRate())).append('\n');
    }
  }

  private static void skipped(StringBuilder md, boolean single, boolean cluster) {
    md.append("## Not covered by this report\n\n")
        .append("- Mixed, DELETE and range scans (`shale knee --workload mixed|delete|range`).\n");
    if (!single) md.append("- The single-node scenarios (run with `--url`).\n");
    if (!cluster) md.append("- The cluster (run with `--cluster-url` and a node of `shale cluster --nodes 3`).\n");
  }

  private static List<ReportCommand.Outcome> concat(List<ReportCommand.Outcome> a, List<ReportCommand.Outcome> b) {
    return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
  }
}
