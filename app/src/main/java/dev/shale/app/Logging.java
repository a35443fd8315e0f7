package dev.shale.app;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * Sends every log record (System.Logger, JUL, Netty's) to stderr, one line each, from the level
 * of the system property {@value #LEVEL_PROPERTY} (a {@link Level} name: INFO, the default, or
 * FINE for debug lines, WARNING, ...).
 */
final class Logging {
  static final String LEVEL_PROPERTY = "shale.log.level";

  private Logging() {}

  static void configure() {
    LogManager.getLogManager().reset();
    ConsoleHandler handler = new ConsoleHandler(); // stderr
    handler.setFormatter(new OneLineFormatter());
    handler.setLevel(Level.ALL);
    Logger root = Logger.getLogger("");
    root.addHandler(handler);
    root.setLevel(level(System.getProperty(LEVEL_PROPERTY, "INFO")));
  }

  private static Level level(String name) {
    try {
      return Level.parse(name.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(LEVEL_PROPERTY + " must be a log level (INFO, FINE, WARNING, ...): " + name);
    }
  }
}
