package dev.shale.app;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code shale scan}: a range of keys and their values, one readable line each. */
@Command(
    name = "scan",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Prints the keys from --start up to (not including) --end and their values, one line each.",
      "GET /v0/entities on the --via node, streamed: the node's own entries, or with --cluster the",
      "whole cluster's (each key once, its newest version; --ack and --from as for a GET).",
      "Each line is KEY<TAB>VALUE, in key order, both escaped so that a line stays one line:",
      "printable UTF-8 as is; \\\\ for a backslash, \\t \\n \\r for a tab, a newline, a carriage",
      "return; \\xHH for any other byte (control characters, bytes that are not UTF-8).",
      "Exit status 0 once the scan is complete; 1 when the node refused it or cut it short (a",
      "failure mid-scan: the lines printed are a prefix of the range), with one line on stderr;",
      "2 for a usage error.",
      ""
    })
final class ScanCommand implements Callable<Integer> {
  /** The smallest key there is (one byte 0x00): a scan from it starts at the first key. */
  private static final String FIRST_KEY = "\0";

  @Spec CommandSpec spec;
  @Mixin ClientOptions node;

  @Option(names = "--start", paramLabel = "<key>", description = "The first key of the range (inclusive). Default: the first key.")
  @Nullable String start;

  @Option(names = "--end", paramLabel = "<key>", description = "The end of the range (exclusive). Default: past the last key.")
  @Nullable String end;

  @Option(names = "--cluster", description = "Scan the whole cluster through the --via node, not only its own entries.")
  boolean cluster;

  @Override
  public Integer call() {
    EntityCalls calls = node.calls();
    PrintWriter out = spec.commandLine().getOut();
    String target = calls.scanTarget(start == null || start.isEmpty() ? FIRST_KEY : start, end, cluster);
    try {
      ScanReader.read(calls.node(), calls.tls(), target, calls.timeout(), calls.token(),
          (key, value) -> out.append(EscapedBytes.of(key)).append('\t').append(EscapedBytes.of(value)).append('\n'));
    } finally {
      out.flush(); // what came before a failure is printed, then the failure's line
    }
    return 0;
  }
}
