package dev.shale.load;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A run with the node profiled: every event is recorded during the one measured interval (see
 * {@link NodeProfiler}), so the result is that of the run the profiles show.
 */
public final class Profiled {
  private Profiled() {}

  /** Runs {@code spec}, profiling {@code events} (none: a plain run); {@code pid} null: ask the node. */
  public static LoadResult run(LoadSpec spec, List<ProfileEvent> events, Path dir, Long pid, PrintWriter out)
      throws LoadException, java.io.IOException {
    if (events.isEmpty()) return LoadRun.run(spec, MeasurementListener.NONE);
    long nodePid = pid != null ? pid : NodeStatus.pid(spec);
    Files.createDirectories(dir);
    return LoadRun.run(spec, new NodeProfiler(nodePid, events, dir.resolve(prefix(spec)), out));
  }

  /** Where a run's flame graphs go: e.g. put-c64-100b-16000, then -cpu.html, -alloc.html. */
  static String prefix(LoadSpec spec) {
    return String.format(java.util.Locale.ROOT, "%s-c%d-%db-%d", spec.workload().cliName(), spec.connections(),
        spec.valueSizeBytes(), Math.round(spec.rate()));
  }
}
