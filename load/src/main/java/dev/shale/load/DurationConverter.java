package dev.shale.load;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations as wrk writes them: 30s, 500ms, 2m, 1h (a bare number is seconds). */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern FORMAT = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)?");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  public static Duration parse(String value) {
    Matcher m = FORMAT.matcher(value.trim());
    if (!m.matches()) {
      throw new TypeConversionException("'" + value + "' is not a duration; write e.g. 30s, 500ms, 2m");
    }
    double amount = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    double nanosPerUnit = switch (unit) {
      case "ms" -> 1e6;
      case "s" -> 1e9;
      case "m" -> 60e9;
      default -> 3600e9;
    };
    return Duration.ofNanos(Math.round(amount * nanosPerUnit));
  }
}
