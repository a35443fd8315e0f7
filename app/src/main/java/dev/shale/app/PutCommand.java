package dev.shale.app;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code shale put KEY VALUE}: stores a value, given on the command line, from a file or from stdin. */
@Command(
    name = "put",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Stores a value under KEY: VALUE itself (its UTF-8 bytes), a file's bytes (--file), or stdin's (VALUE '-').",
      "PUT /v0/entity?id=KEY on the --via node (any member of a cluster), with --ack, --from and",
      "--ttl. Prints OK once the node stored it (201). A file that cannot be read is refused before",
      "anything is sent: nothing is stored (curl's --data-binary @file sends nothing instead, and",
      "stores an empty value). Exit status 0 when stored, 1 when the node refused or could not be",
      "reached (one line on stderr says why), 2 for a usage error.",
      ""
    })
final class PutCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ClientOptions node;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key (any UTF-8 text; sent percent-encoded).")
  String key;

  @Parameters(index = "1", paramLabel = "VALUE", arity = "0..1",
      description = "The value, as text (its UTF-8 bytes); '-' reads the value from stdin. Not with --file.")
  @Nullable String value;

  @Option(names = "--file", paramLabel = "<path>", description = "Store this file's bytes (any bytes: an image, a JSON document).")
  @Nullable Path file;

  @Option(names = "--ttl", paramLabel = "<seconds>", defaultValue = "0",
      description = "The value expires this many seconds after the write (1 to 315360000). Default: never.")
  long ttlSeconds;

  /** Where VALUE '-' is read from. */
  InputStream stdin = System.in;

  @Override
  public Integer call() {
    if (ttlSeconds < 0) throw usage("--ttl must be a positive number of seconds: " + ttlSeconds);
    EntityCalls calls = node.calls();
    byte[] bytes = value();
    EntityCalls.Answer answer = calls.put(key, bytes, ttlSeconds);
    if (answer.status() != 201) {
      throw new AdminCallException(calls.node() + " answered PUT of " + key + " with " + answer.status() + ": " + answer.reason());
    }
    spec.commandLine().getOut().println("OK");
    return 0;
  }

  private byte[] value() {
    if (file != null && value != null) throw usage("give the value as VALUE or as --file, not both");
    if (file == null && value == null) throw usage("no value: give VALUE, --file <path>, or '-' to read stdin");
    try {
      if (file != null) return Files.readAllBytes(file);
      if ("-".equals(value)) return stdin.readAllBytes();
    } catch (NoSuchFileException e) {
      throw usage("--file " + file + ": no such file; nothing was stored");
    } catch (IOException e) {
      throw usage((file != null ? "--file " + file : "stdin") + ": cannot read it (" + e.getMessage() + "); nothing was stored");
    }
    return java.util.Objects.requireNonNull(value, "checked above").getBytes(StandardCharsets.UTF_8);
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
