package dev.shale.app;

import java.time.Instant;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * One line per record: {@code 2026-01-02T03:04:05.678Z INFO  ShaleServer: message}. A record's
 * exception, if any, is appended to the same line as {@code : type: message}, so that the log
 * stays greppable line by line.
 */
final class OneLineFormatter extends Formatter {
  @Override
  public String format(LogRecord record) {
    StringBuilder line = new StringBuilder(128)
        .append(Instant.ofEpochMilli(record.getMillis()))
        .append(' ')
        .append(levelName(record.getLevel()))
        .append(' ')
        .append(shortName(record.getLoggerName()))
        .append(": ")
        .append(formatMessage(record));
    if (record.getThrown() != null) line.append(": ").append(record.getThrown());
    return oneLine(line) + System.lineSeparator();
  }

  private static String levelName(Level level) {
    int v = level.intValue();
    if (v >= Level.SEVERE.intValue()) return "ERROR";
    if (v >= Level.WARNING.intValue()) return "WARN ";
    if (v >= Level.INFO.intValue()) return "INFO ";
    return "DEBUG";
  }

  private static String shortName(String loggerName) {
    if (loggerName == null) return "-";
    return loggerName.substring(loggerName.lastIndexOf('.') + 1);
  }

  private static String oneLine(CharSequence s) {
    return s.toString().replace('\r', ' ').replace('\n', ' ');
  }
}
