package dev.shale.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code shale delete KEY}: deletes a key's value. */
@Command(
    name = "delete",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Deletes the value of KEY (also when there is none).",
      "DELETE /v0/entity?id=KEY on the --via node (any member of a cluster), with --ack and --from.",
      "Prints OK once the node stored the deletion (202). Exit status 0 then, 1 when the node",
      "refused or could not be reached (one line on stderr says why), 2 for a usage error.",
      ""
    })
final class DeleteCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ClientOptions node;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key (any UTF-8 text; sent percent-encoded).")
  String key;

  @Override
  public Integer call() {
    EntityCalls calls = node.calls();
    EntityCalls.Answer answer = calls.delete(key);
    if (answer.status() != 202) {
      throw new AdminCallException(calls.node() + " answered DELETE of " + key + " with " + answer.status() + ": " + answer.reason());
    }
    spec.commandLine().getOut().println("OK");
    return 0;
  }
}
