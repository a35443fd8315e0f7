package dev.shale.app;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code shale nodes repair}: an anti-entropy repair of the whole cluster now ({@code POST /v0/admin/repair}). */
@Command(
    name = "repair",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Repairs the whole cluster now, through the --via node.",
      "Every pair of nodes compares the keys it shares (Merkle trees) and copies the records that",
      "differ, newest version winning, deletions included. Prints what was compared and exchanged",
      "once done (minutes on a large store). Exit status 0 when every pair was repaired, 1 when one",
      "could not be (a node down: the lines after the summary say which).",
      ""
    })
final class NodesRepairCommand implements Callable<Integer> {
  private static final Pattern FAILURE = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

  @Spec CommandSpec spec;
  @Mixin AdminOptions admin;

  @Option(names = "--json", description = "Print the node's answer as it came, a JSON object, for scripts.")
  boolean json;

  @Override
  public Integer call() {
    String report = admin.client().post("/v0/admin/repair");
    PrintWriter out = spec.commandLine().getOut();
    List<String> failures = failures(report);
    if (json) {
      out.println(report);
    } else {
      out.println(summary(report));
      for (String failure : failures) out.println("  failed: " + failure);
    }
    return failures.isEmpty() ? 0 : 1;
  }

  /** One line: what the repair compared and exchanged, and how long it took. */
  static String summary(String report) {
    return String.format(Locale.ROOT,
        "repaired %d ranges (replica pairs): %d of %d leaves differed; %d records, %d bytes exchanged in %.1f s",
        number(report, "rangesCompared"), number(report, "leavesDiffering"), number(report, "leavesCompared"),
        number(report, "recordsExchanged"), number(report, "bytesExchanged"), number(report, "durationMillis") / 1000.0);
  }

  /** The pairs the repair could not repair, one line each (the JSON strings of its "failures"). */
  static List<String> failures(String report) {
    int start = report.indexOf("\"failures\": [");
    if (start < 0) throw new AdminCallException("the node's answer has no \"failures\": " + report);
    List<String> failures = new ArrayList<>();
    Matcher m = FAILURE.matcher(report.substring(start + "\"failures\": [".length(), report.lastIndexOf(']')));
    while (m.find()) failures.add(m.group(1).replace("\\\"", "\"").replace("\\\\", "\\"));
    return failures;
  }

  private static long number(String report, String name) {
    Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(report);
    if (!m.find()) throw new AdminCallException("the node's answer has no \"" + name + "\": " + report);
    return Long.parseLong(m.group(1));
  }
}
