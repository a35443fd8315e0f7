package dev.shale.app;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code shale get KEY}: a key's value, its bytes as stored, on standard output. */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Prints the value of KEY, its bytes exactly as stored, with no newline added.",
      "GET /v0/entity?id=KEY on the --via node (any member of a cluster), with --ack and --from.",
      "Exit status 0 with the value; 1 with one line on stderr when there is none (404: never",
      "written, deleted, expired) or the node could not answer; 2 for a usage error.",
      ""
    })
final class GetCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ClientOptions node;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key (any UTF-8 text; sent percent-encoded).")
  String key;

  /** Where the value's bytes go: standard output, which a PrintWriter would re-encode. */
  OutputStream valueOut = System.out;

  @Override
  public Integer call() {
    EntityCalls calls = node.calls();
    EntityCalls.Answer answer = calls.get(key);
    switch (answer.status()) {
      case 200 -> {
        spec.commandLine().getOut().flush();
        try {
          valueOut.write(answer.body());
          valueOut.flush();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot write the value to standard output", e);
        }
        return 0;
      }
      case 404 -> {
        spec.commandLine().getErr().println("shale: no value for " + EscapedBytes.of(key.getBytes(StandardCharsets.UTF_8)) + " (404)");
        return Main.FAILED;
      }
      default -> throw new AdminCallException(calls.node() + " answered GET of " + key + " with " + answer.status() + ": " + answer.reason());
    }
  }
}
