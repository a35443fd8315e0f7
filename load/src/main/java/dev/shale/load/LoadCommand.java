package dev.shale.load;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code shale load}: one open-loop run at a constant rate, printed the way wrk2 prints. */
@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    usageHelpWidth = 100,
    description = {
      "Loads a node with HTTP requests at a constant rate, the way wrk2 does.",
      "Open loop: each connection sends its share of --rate at fixed intervals, one request in",
      "flight; a late answer delays the next request, whose latency still counts from when it was",
      "due (coordinated omission corrected). Prints its settings at once, a line of progress every",
      "5 s, then the results in wrk2's layout. Takes --warmup + --duration (45 s by default).",
      "Exit status 1 when the node could not be reached."
    })
public final class LoadCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin LoadOptions options;

  @Option(names = {"-R", "--rate"}, description = "Target rate in requests/s (all connections together).")
  Double rate;

  @Option(names = "--fill", paramLabel = "N",
      description = "Instead of a run: PUT k0..k(N-1) as fast as the node takes them (bounded by --connections), then exit.")
  Long fill;

  @Option(names = "--hgrm", description = "Write the percentile distribution (HdrHistogram .hgrm, ms) here.")
  Path hgrm;

  @Option(names = "--json", description = "Write a JSON summary here.")
  Path json;

  @Option(names = "--timeline-plot", paramLabel = "<png>",
      description = "Plot the latency second by second (p50, p99, max) here, as the table after the results shows it.")
  Path timelinePlot;

  @Option(names = "--profile", description = "Profile the node during the measured interval: cpu,alloc,lock (any of them).")
  String profile;

  @Option(names = "--profile-dir", defaultValue = ".", description = "Where flame graphs go. Default: the current directory.")
  Path profileDir;

  @Option(names = "--pid", description = "The node's pid for --profile (default: from GET /v0/status).")
  Long pid;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (fill != null) {
      if (fill < 1) throw new ParameterException(spec.commandLine(), "--fill must be at least 1, not " + fill);
      options.keys = fill;
      Fill.run(options.toSpec(1), out);
      return 0;
    }
    if (rate == null) throw new ParameterException(spec.commandLine(), "--rate is required (or --fill N)");
    List<ProfileEvent> events = profileEvents();
    LoadSpec load = options.toSpec(rate);
    out.printf("seed %d (replay with --seed %d)%n", load.seed(), load.seed());
    // The header at once and the progress as it goes: a run takes its warmup and duration.
    out.print(Wrk2Format.header(load));
    out.flush();
    LoadResult result;
    try (RunProgress progress = RunProgress.start(load, out)) {
      result = Profiled.run(load, events, profileDir, pid, out);
    }
    out.print(Wrk2Format.results(result));
    writeOutputs(result);
    warnAboutRange(result, out);
    out.flush();
    return 0;
  }

  private List<ProfileEvent> profileEvents() {
    if (profile == null) return List.of();
    try {
      return ProfileEvent.parseList(profile);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--profile: " + e.getMessage());
    }
  }

  private void writeOutputs(LoadResult result) throws IOException {
    if (hgrm != null) Files.writeString(hgrm, Wrk2Format.spectrum(result.latencyMicros()));
    if (json != null) Files.writeString(json, JsonSummary.of(result));
    if (timelinePlot != null) {
      Plots.latencyOverTime(result.spec().workload().cliName() + " at " + Math.round(result.spec().rate()) + " requests/s",
          result.latencyBySecond(), timelinePlot);
    }
  }

  static void warnAboutRange(LoadResult result, PrintWriter out) {
    if (result.spec().workload() == Workload.RANGE && result.statuses().containsKey(400)) {
      out.println("NOTE: the node answered 400 to GET /v0/entities: a node older than range scans (issue 7) has no such endpoint.");
    }
  }
}
