package dev.shale.app;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code --now} of {@code shale tool get|scan}: the wall-clock time at which expiring values
 * are judged (docs/design.md, "Expiring values"). A node judges by its own clock when it serves;
 * a stopped node's store has no clock, so the tool takes this machine's unless told another
 * (e.g. the time a backup was taken, to see what it served then).
 */
final class NowOption {
  @Spec(Spec.Target.MIXEE) CommandSpec spec;

  @Option(names = "--now", paramLabel = "<time>",
      description = "Judge expiring values (ttl) at this time: an ISO-8601 instant (2026-11-28T10:15:30Z) or milliseconds"
          + " since the epoch. Default: this machine's clock when the command runs.")
  @Nullable String now;

  /** The time given, or this machine's clock now. */
  long millis() {
    if (now == null) return System.currentTimeMillis();
    String given = now.trim();
    try {
      return given.chars().allMatch(Character::isDigit) && !given.isEmpty()
          ? Long.parseLong(given)
          : Instant.parse(given).toEpochMilli();
    } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) {
      throw new ParameterException(spec.commandLine(),
          "--now: not an ISO-8601 instant (2026-11-28T10:15:30Z) nor milliseconds since the epoch: " + now);
    }
  }
}
