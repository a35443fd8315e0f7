package dev.shale.app;

import dev.shale.load.KneeCommand;
import dev.shale.load.LoadCommand;
import dev.shale.load.ReportCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code shale}: the command line's root; it only dispatches to its commands. */
@Command(
    name = "shale",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {"Shale: a key-value store with an HTTP API on its own LSM-tree storage engine.", ""},
    subcommands = {ServerCommand.class, ClusterCommand.class, GetCommand.class, PutCommand.class, DeleteCommand.class,
        ScanCommand.class, NodesCommand.class, TokensCommand.class, SnapshotCommand.class, CertsCommand.class, ToolCommand.class,
        LoadCommand.class, KneeCommand.class,
        ReportCommand.class,
        BenchCommand.class, SimulateCommand.class, HelpCommand.class},
    footer = {
      "",
      "Run 'shale <command> --help' for a command's options.",
      "The launcher script also runs the test suite: './shale test [mvn args]' builds the project",
      "and runs every test (Maven's 'verify'); './shale dist --out DIR' builds a release tarball",
      "with its own Java runtime (docs/deploy.md)."
    })
final class ShaleCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing command: try 'shale server'");
  }
}
