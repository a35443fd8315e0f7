package dev.shale.load;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A run with the node profiled. async-profiler writes one event per HTML flame graph, so with
 * several events the measured interval is repeated at the same rate, once per event, right after
 * the first (no warmup between them): the result returned is the first interval's, which the
 * first event profiled.
 */
public final class Profiled {
  private Profiled() {}

  /** Runs {@code spec}, profiling {@code events} (none: a plain run); {@code pid} null: ask the node. */
  public static LoadResult run(LoadSpec spec, List<ProfileEvent> events, Path dir, Long pid, PrintWriter out)
      throws LoadException, java.io.IOException {
    if (events.isEmpty()) return LoadRun.run(spec, MeasurementListener.NONE);
    long nodePid = pid != null ? pid : NodeStatus.pid(spec.url());
    Files.createDirectories(dir);
    LoadResult first = null;
    for (ProfileEvent event : events) {
      LoadSpec run = first == null ? spec : spec.withDurations(spec.duration(), Duration.ZERO);
      NodeProfiler profiler = new NodeProfiler(nodePid, event, dir.resolve(fileName(spec, event)), out);
      LoadResult result = LoadRun.run(run, profiler);
      if (first == null) first = result;
    }
    return first;
  }

  static String fileName(LoadSpec spec, ProfileEvent event) {
    return String.format(java.util.Locale.ROOT, "%s-c%d-%db-%d-%s.html", spec.workload().cliName(), spec.connections(),
        spec.valueSizeBytes(), Math.round(spec.rate()), event.eventName());
  }
}
