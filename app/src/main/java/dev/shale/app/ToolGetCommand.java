package dev.shale.app;

import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import dev.shale.storage.inspect.StoreInspector;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code shale tool get DATA_DIR KEY}: the value a node would serve for KEY from a stopped store
 * (RocksDB's {@code ldb get}): the newest version among the tables and the log segments not yet
 * flushed, tombstones and expiries honoured. Exit 0 with the value, 1 when there is none.
 */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpWidth = 100,
    description = {
      "Prints the value a node would serve for KEY from its stopped store.",
      "That is the newest version among its tables and log segments. Exits 1, saying so, when the key has no value (never written,",
      "deleted, or expired at --now). The value prints as text, \\xNN for bytes that are not",
      "printable UTF-8. Writes nothing.",
      ""
    })
final class ToolGetCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin NowOption now;

  @Parameters(index = "0", paramLabel = "DATA_DIR", description = "The node's --data directory, or a snapshot of it.")
  Path directory;

  @Parameters(index = "1", paramLabel = "KEY", description = "The key, as an id is once percent-decoded: its UTF-8 bytes.")
  String key;

  @Option(names = "--verbose", description = "Also print the record's version (and expiry), one field a line.")
  boolean verbose;

  @Override
  public Integer call() {
    OfflineStore.QuietEngineLog quiet = new OfflineStore.QuietEngineLog();
    try {
      return get();
    } finally {
      quiet.close();
    }
  }

  private Integer get() {
    long nowMillis = now.millis();
    PrintWriter out = spec.commandLine().getOut();
    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
    @Nullable Entry record;
    try (StoreInspector inspector = OfflineStore.open(spec, directory)) {
      record = inspector.get(keyBytes);
    } catch (StorageException e) {
      throw new ToolFailure(String.valueOf(e.getMessage()), e);
    } catch (IOException e) {
      throw OfflineStore.failed("reading " + directory, e);
    }
    String shown = "'" + PrintableBytes.text(keyBytes, PrintableBytes.ALL) + "'";
    byte @Nullable [] value = record == null ? null : record.readAt(nowMillis).value();
    if (record == null || value == null) {
      spec.commandLine().getErr().println("shale: " + shown + " has no value in " + directory + ": " + why(record));
      return Main.FAILED;
    }
    if (verbose) {
      out.println("key " + shown);
      out.println("version " + RecordText.version(record.version()));
      out.println(record.expires() ? "expires " + Instant.ofEpochMilli(record.expiresAtMillis()) : "expires never");
      out.println("value " + PrintableBytes.text(value, PrintableBytes.ALL));
    } else {
      out.println(PrintableBytes.text(value, PrintableBytes.ALL));
    }
    return 0;
  }

  private static String why(@Nullable Entry record) {
    if (record == null) return "never written (or its tombstone purged)";
    if (record.isTombstone()) return "deleted at version " + RecordText.version(record.version());
    return "expired at " + Instant.ofEpochMilli(record.expiresAtMillis()) + " (version "
        + RecordText.version(record.version()) + ")";
  }
}
