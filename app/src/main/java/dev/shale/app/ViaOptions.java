package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of the cluster map's commands: the node to ask ({@code --via}) and how long a call
 * may take. Unsigned calls until the admin signatures (issue 15, branch rf-admin) are merged: then
 * the commands mix in its {@code AdminOptions} instead, which signs with the cluster secret.
 */
final class ViaOptions {
  @Spec(Spec.Target.MIXEE) CommandSpec spec;

  @Option(names = "--via", paramLabel = "<url>", required = true,
      description = "A member of the cluster, as its base URL (e.g. http://10.0.0.1:8080): the call goes to it.")
  String via;

  @Option(names = "--timeout", paramLabel = "<ms>", defaultValue = "3600000",
      description = "Longest the command may take, from connecting to its end. Default: ${DEFAULT-VALUE} (1 h).")
  long timeoutMillis;

  /** A client of the {@code --via} node; a usage error if an option is wrong. */
  TopologyCalls client() {
    NodeAddress node;
    try {
      node = NodeAddress.parse(via);
    } catch (IllegalArgumentException e) {
      throw usage("--via: " + e.getMessage());
    }
    if (timeoutMillis < 1) throw usage("--timeout must be at least 1 ms: " + timeoutMillis);
    return new TopologyCalls(node, Duration.ofMillis(timeoutMillis));
  }

  private ParameterException usage(@Nullable String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
