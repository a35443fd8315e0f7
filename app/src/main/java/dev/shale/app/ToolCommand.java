package dev.shale.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shale tool}: the offline tools, which read a stopped node's data directory without
 * opening it as a store and never write to it (README, "Offline tools"; docs/operations.md,
 * "Checking a store"). Each is one small class listed here, reading through the storage module's
 * {@code dev.shale.storage.inspect} API.
 */
@Command(
    name = "tool",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Reads a stopped node's data directory (or one of its files) and never writes to it.",
      "It verifies every checksum, dumps a table, log segment or manifest, gets or scans records.",
      "A directory a running node holds is refused: stop the node, or read a snapshot of it.",
      ""
    },
    subcommands = {ToolVerifyCommand.class, ToolDumpCommand.class, ToolGetCommand.class, ToolScanCommand.class})
final class ToolCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing subcommand: try 'shale tool --help'");
  }
}
