package dev.shale.app;

import dev.shale.storage.StorageException;
import dev.shale.storage.inspect.DumpSink;
import dev.shale.storage.inspect.FileDump;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code shale tool dump FILE}: one file of a stopped store as the engine reads it (RocksDB's
 * {@code sst_dump} and {@code ldb dump_wal}, Cassandra's {@code sstabledump}); exit 1 if it found
 * damage, which it lists where it meets it and reads on past.
 */
@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Prints one file of a stopped node's data directory.",
      "By its name: a table (<n>.sst: its",
      "footer, index and every record: key, kind, version, value), a log segment (<n>.wal: every",
      "record with its offset) or a manifest (MANIFEST-<n>: every record, each a snapshot of the",
      "store's tables). Keys and values print as text, \\xNN for bytes that are not printable UTF-8.",
      "Exits 1 if the file is damaged (listed where met; the rest is still read). Writes nothing.",
      ""
    })
final class ToolDumpCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "A .sst, .wal or MANIFEST-<n> file.")
  Path file;

  @Option(names = "--json", description = "One JSON object per line (a stream): the file, then each block, record or snapshot.")
  boolean json;

  @Option(names = "--values", paramLabel = "<n>", defaultValue = "64",
      description = "Print at most this many bytes of each value (-1: all of it). Default: ${DEFAULT-VALUE}.")
  int valueLimit;

  @Override
  public Integer call() {
    OfflineStore.QuietEngineLog quiet = new OfflineStore.QuietEngineLog();
    try {
      return dump();
    } finally {
      quiet.close();
    }
  }

  private Integer dump() {
    if (valueLimit < -1) throw new ParameterException(spec.commandLine(), "--values must be -1 (all) or at least 0: " + valueLimit);
    PrintWriter out = spec.commandLine().getOut();
    DumpSink sink = json ? new DumpJson(out, valueLimit) : new DumpText(out, valueLimit);
    try {
      boolean damaged = FileDump.dump(file, sink);
      out.flush();
      return damaged ? Main.FAILED : 0;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    } catch (StorageException e) {
      throw new ToolFailure(String.valueOf(e.getMessage()), e);
    } catch (IOException e) {
      throw OfflineStore.failed("reading " + file, e);
    }
  }
}
