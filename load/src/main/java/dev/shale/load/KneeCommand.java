package dev.shale.load;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code shale knee}: finds a workload's stable rate and plots latency against rate. */
@Command(
    name = "knee",
    mixinStandardHelpOptions = true,
    usageHelpWidth = 100,
    description = {
      "Finds the stable rate of a workload, and plots latency against rate.",
      "The stable rate is the highest constant rate at which, over the whole measured run, the",
      "achieved rate is >= 99%% of the target and p99 <= --p99 (10 ms), without errors. Geometric",
      "ramp from --start, then bisection; every rate runs its own warmup and measured interval.",
      "Duration: --warmup + --duration (45 s by default) per rate tried, typically 8 to 14 rates",
      "(doubling from 1000 req/s to a knee of 10k to 100k, then up to --max-steps bisections):",
      "6 to 11 minutes with the defaults."
    })
public final class KneeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin LoadOptions options;

  @Option(names = "--start", defaultValue = "1000", description = "First rate tried, requests/s. Default: ${DEFAULT-VALUE}.")
  double start;

  @Option(names = "--max", defaultValue = "1000000", description = "Highest rate tried, requests/s. Default: ${DEFAULT-VALUE}.")
  double max;

  @Option(names = "--p99", defaultValue = "10ms", converter = DurationConverter.class,
      description = "Bound on p99 for a stable run. Default: ${DEFAULT-VALUE}.")
  Duration p99Bound;

  @Option(names = "--precision", defaultValue = "0.05",
      description = "Stop bisecting when the unstable rate is within this fraction above the stable one. Default: ${DEFAULT-VALUE}.")
  double precision;

  @Option(names = "--max-steps", defaultValue = "6", description = "Bisection steps at most. Default: ${DEFAULT-VALUE}.")
  int maxSteps;

  @Option(names = "--plot", defaultValue = "knee.png", description = "PNG of latency percentiles vs rate. Default: ${DEFAULT-VALUE}.")
  Path plot;

  @Override
  public Integer call() throws Exception {
    if (!(start > 0) || !(max >= start)) {
      throw new ParameterException(spec.commandLine(), "--start must be positive and at most --max (got " + start + " and " + max + ")");
    }
    if (!(precision > 0)) throw new ParameterException(spec.commandLine(), "--precision must be positive, not " + precision);
    PrintWriter out = spec.commandLine().getOut();
    LoadSpec base = options.toSpec(start);
    out.printf(Locale.ROOT, "knee of %s over %d connections at %s; stable: achieved >= 99%% and p99 <= %d ms; seed %d%n",
        base.workload().cliName(), base.connections(), base.url(), p99Bound.toMillis(), base.seed());
    out.println(KneeTable.HEADER);
    KneeSearch.Knee knee = new KneeSearch(new StableRate(0.99, p99Bound), precision, maxSteps)
        .search(rate -> LoadRun.run(base.withRate(rate), MeasurementListener.NONE), start, max, out);
    out.println();
    out.println("Every rate tried, by rate:");
    out.print(KneeTable.text(knee.byRate()));
    Plots.latencyVsRate(base.workload().cliName() + ", " + base.connections() + " connections: latency vs rate",
        knee.trials(), p99Bound, plot);
    out.printf(Locale.ROOT, "%s%nplot: %s%n", verdict(knee), plot);
    java.util.Optional<KneeSearch.Trial> lowestUnstable = knee.lowestUnstable();
    if (lowestUnstable.isPresent()) {
      KneeSearch.Trial unstable = lowestUnstable.get();
      Path timeline = Plots.timelineBeside(plot);
      Plots.lowestUnstableTimeline(base.workload().cliName(), unstable, timeline);
      StringBuilder table = new StringBuilder();
      Wrk2Format.latencyBySecond(table, unstable.result());
      out.printf(Locale.ROOT, "%nAt %.0f requests/s, the lowest rate not stable (%s):%n%stimeline plot: %s%n",
          unstable.target(), unstable.reason(), table, timeline);
    }
    return 0;
  }

  static String verdict(KneeSearch.Knee knee) {
    if (knee.stableRate() == 0) return "no rate tried was stable";
    return String.format(Locale.ROOT, "stable rate: %.0f requests/s%s", knee.stableRate(),
        knee.reachedMax() ? " (the --max tried: the knee is higher)" : "");
  }
}
