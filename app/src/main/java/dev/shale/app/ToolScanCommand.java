package dev.shale.app;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.StorageException;
import dev.shale.storage.inspect.StoreInspector;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code shale tool scan DATA_DIR [--start K] [--end K]}: the live records of a stopped store in
 * key order, as a node's range scan would give them (RocksDB's {@code ldb scan}).
 */
@Command(
    name = "scan",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Prints the live records of a stopped node's store with --start <= key < --end, in key order.",
      "One line each: the key, a tab, the value (with --verbose: key, version, expiry, value). Keys",
      "and values print as text, \\xNN for bytes that are not printable UTF-8 (so a line is a record).",
      "Deleted keys and values expired at --now are left out, as a node's scan leaves them. Writes nothing.",
      ""
    })
final class ToolScanCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin NowOption now;

  @Parameters(index = "0", paramLabel = "DATA_DIR", description = "The node's --data directory, or a snapshot of it.")
  Path directory;

  @Option(names = "--start", paramLabel = "<key>", description = "The first key (inclusive). Default: the first key.")
  @Nullable String start;

  @Option(names = "--end", paramLabel = "<key>", description = "The key to stop before (exclusive). Default: to the last key.")
  @Nullable String end;

  @Option(names = "--verbose", description = "Also print each record's version and expiry.")
  boolean verbose;

  @Option(names = "--values", paramLabel = "<n>", defaultValue = "-1",
      description = "Print at most this many bytes of each value (-1: all of it). Default: ${DEFAULT-VALUE}.")
  int valueLimit;

  @Override
  public Integer call() {
    OfflineStore.QuietEngineLog quiet = new OfflineStore.QuietEngineLog();
    try {
      return scan();
    } finally {
      quiet.close();
    }
  }

  private Integer scan() {
    long nowMillis = now.millis();
    PrintWriter out = spec.commandLine().getOut();
    byte[] from = start == null ? new byte[0] : start.getBytes(StandardCharsets.UTF_8);
    byte @Nullable [] to = end == null ? null : end.getBytes(StandardCharsets.UTF_8);
    try (StoreInspector inspector = OfflineStore.open(spec, directory);
        EntryIterator records = inspector.scan(from, to, nowMillis)) {
      while (records.hasNext()) out.println(line(records.next()));
    } catch (StorageException e) {
      throw new ToolFailure(String.valueOf(e.getMessage()), e);
    } catch (IOException e) {
      throw OfflineStore.failed("scanning " + directory, e);
    }
    out.flush();
    return 0;
  }

  private String line(Entry record) {
    String key = PrintableBytes.text(record.key(), PrintableBytes.ALL);
    String value = PrintableBytes.text(Objects.requireNonNull(record.value(), "a live record"), valueLimit);
    if (!verbose) return key + "\t" + value;
    return key + "\t" + RecordText.version(record.version()) + "\t"
        + (record.expires() ? Instant.ofEpochMilli(record.expiresAtMillis()).toString() : "never") + "\t" + value;
  }
}
