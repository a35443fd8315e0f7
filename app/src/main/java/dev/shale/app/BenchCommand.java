package dev.shale.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code shale bench}: benchmarks; it only dispatches to them. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {"Benchmarks of Shale.", ""},
    subcommands = {BenchEngineCommand.class, BenchIoCommand.class},
    footer = {
      "",
      "The launcher script also runs the JMH microbenchmarks of the engine's hot paths:",
      "'./shale bench jmh [regex] [JMH options]' (see docs/perf/engine.md)."
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing benchmark: try 'shale bench engine --help' or 'shale bench io --help'");
  }
}
