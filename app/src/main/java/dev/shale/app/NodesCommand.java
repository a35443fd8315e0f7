package dev.shale.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shale nodes}: the operator's calls to a running cluster, each a subcommand that sends
 * signed admin calls to one node ({@code --via}) through an {@link AdminClient}. A subcommand is
 * one small class that mixes in {@link AdminOptions} and is listed here.
 */
@Command(
    name = "nodes",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Operates a running cluster through one of its nodes.",
      "Each command goes to the --via node, signing its calls with the cluster secret",
      "(--cluster-secret-file) as the nodes require.",
      ""
    },
    subcommands = {NodesCompactCommand.class, NodesEndpointsCommand.class, NodesListCommand.class, NodesRemoveCommand.class,
        NodesRepairCommand.class, NodesSnapshotCommand.class})
final class NodesCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing subcommand: try 'shale nodes --help'");
  }
}
