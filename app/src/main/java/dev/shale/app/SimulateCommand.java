package dev.shale.app;

import dev.shale.sim.SimResult;
import dev.shale.sim.Simulation;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shale simulate}: runs the deterministic cluster simulation (docs/design.md,
 * "Simulation") for one seed or a campaign of seeds; exits 0 only if every seed held.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Runs a whole cluster in one thread and virtual time under seeded faults, and checks it.",
      "Each run prints 'seed S trace <hash>': the same seed gives the same run, event for event.",
      "A failing seed prints what failed, its last events and the command that replays it.",
      ""
    })
final class SimulateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--seed", paramLabel = "<seed>", description = "Runs this one seed.")
  @Nullable Long seed;

  @Option(names = "--seeds", paramLabel = "<n>", description = "Runs this many seeds, one after another.")
  @Nullable Integer seeds;

  @Option(names = "--first-seed", paramLabel = "<seed>", description = "The first seed of --seeds (default: drawn at random, and printed).")
  @Nullable Long firstSeed;

  @Option(names = "--events", paramLabel = "<n>", defaultValue = "200",
      description = "How many of a failing run's last events to print (default: ${DEFAULT-VALUE}).")
  int events;

  @Option(names = "--trace", description = "With --seed: prints the run's whole trace, held or not.")
  boolean trace;

  @Override
  public Integer call() throws IOException {
    if ((seed == null) == (seeds == null)) throw usage("give --seed S or --seeds N");
    if (seeds != null && seeds < 1) throw usage("--seeds must be at least 1: " + seeds);
    if (firstSeed != null && seeds == null) throw usage("--first-seed goes with --seeds");
    if (trace && seed == null) throw usage("--trace goes with --seed");
    // The nodes' own log lines (hint back-offs, engines opened and lost) would bury the runs'
    // lines; the trace says what happened.
    Logger.getLogger("").setLevel(Level.OFF);
    PrintWriter out = spec.commandLine().getOut();
    Path directory = Files.createTempDirectory("shale-simulate-");
    try {
      if (seed != null) return runOne(out, directory, seed) ? 0 : 1;
      return campaign(out, directory);
    } finally {
      Files.deleteIfExists(directory);
    }
  }

  private boolean runOne(PrintWriter out, Path directory, long s) {
    SimResult result = Simulation.run(s, directory.resolve("seed-" + s), trace ? Integer.MAX_VALUE : events);
    if (trace) result.latestEvents().forEach(out::println);
    report(out, result);
    return result.held();
  }

  private int campaign(PrintWriter out, Path directory) {
    long first = firstSeed != null ? firstSeed : new SplittableRandom().nextLong() >>> 1;
    int count = Objects.requireNonNull(seeds);
    out.println("simulating " + count + " seeds from " + first);
    long started = System.nanoTime();
    int failed = 0;
    for (int i = 0; i < count; i++) {
      SimResult result = Simulation.run(first + i, directory.resolve("seed-" + (first + i)), events);
      report(out, result);
      if (!result.held()) failed++;
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    out.printf("%d seeds, %d held, %d failed, in %.1f s (%.2f seeds/s)%n", count, count - failed, failed, seconds, count / seconds);
    out.flush();
    return failed == 0 ? 0 : 1;
  }

  private void report(PrintWriter out, SimResult result) {
    if (!result.held()) {
      out.println("seed " + result.seed() + " FAILED: " + result.scenario());
      for (String failure : result.failures()) out.println("  " + failure);
      if (!trace) {
        out.println("  its last " + result.latestEvents().size() + " events:");
        result.latestEvents().forEach(e -> out.println("    " + e));
      }
      out.println("  replay: ./shale simulate --seed " + result.seed() + " (--trace prints every event)");
    }
    out.printf("seed %d trace %s %s (%d events, %.1f s virtual)%n", result.seed(), result.trace(), result.held() ? "held" : "FAILED",
        result.events(), result.virtualMillis() / 1e3);
    out.flush();
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
