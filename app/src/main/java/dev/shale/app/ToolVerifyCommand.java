package dev.shale.app;

import dev.shale.storage.inspect.Finding;
import dev.shale.storage.inspect.StoreInspector;
import dev.shale.storage.inspect.VerifyReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code shale tool verify DATA_DIR}: every checksum and every check of opening of a stopped
 * store (Cassandra's {@code sstableverify}, {@code redis-check-aof}): exit 0 when it is whole, 1
 * with one line per problem (file, offset, what) when not, 2 for bad usage.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Checks a stopped node's store and lists every problem found.",
      "It checks the crc of every table block (data, index, filter, footer),",
      "of every log record and manifest record, and every check a node makes when it opens the",
      "store (snapshot invariants, tables named vs present, each table the one the manifest",
      "describes, log segments). Lists every problem, one line each (file, offset, what), and",
      "exits 1; exits 0 with a summary when the store is whole. A torn append (a write a crash",
      "cut short, never acknowledged) is a note, not damage. Writes nothing.",
      ""
    })
final class ToolVerifyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DATA_DIR", description = "The node's --data directory, or a snapshot of it.")
  Path directory;

  @Override
  public Integer call() {
    OfflineStore.QuietEngineLog quiet = new OfflineStore.QuietEngineLog();
    try {
      return verify();
    } finally {
      quiet.close();
    }
  }

  private Integer verify() {
    PrintWriter out = spec.commandLine().getOut();
    try (StoreInspector inspector = OfflineStore.open(spec, directory)) {
      VerifyReport report = inspector.verify();
      for (Finding finding : report.findings()) out.println((finding.damage() ? "DAMAGE " : "note   ") + finding);
      if (!inspector.locked()) {
        out.println("note   " + directory + " has no LOCK file (a snapshot or a copy): read without taking one");
      }
      out.println(summary(report));
      return report.whole() ? 0 : Main.FAILED;
    } catch (IOException e) {
      throw OfflineStore.failed("verifying " + directory, e);
    }
  }

  static String summary(VerifyReport report) {
    String read = report.manifests() + " manifest" + plural(report.manifests()) + ", " + report.tables() + " table"
        + plural(report.tables()) + " (" + report.tableRecords() + " record" + plural(report.tableRecords()) + "), "
        + report.segments() + " log segment" + plural(report.segments()) + " (" + report.logRecords() + " record"
        + plural(report.logRecords()) + "), " + report.bytes() + " bytes";
    if (report.whole()) {
      return report.directory() + ": whole. Read " + read + "; every checksum holds and every check a node makes"
          + " when it opens the store passes" + (report.notes().isEmpty() ? "." : " (notes above).");
    }
    long files = report.damage().stream().map(Finding::file).distinct().count();
    return report.directory() + ": DAMAGED: " + report.damage().size() + " problem" + plural(report.damage().size())
        + " in " + files + " file" + plural(files) + " (above). Read " + read + ". What to do: docs/operations.md,"
        + " \"Checking a store\".";
  }

  private static String plural(long n) {
    return n == 1 ? "" : "s";
  }
}
