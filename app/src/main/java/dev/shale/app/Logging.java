package dev.shale.app;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * Sends every log record (System.Logger, JUL, Netty's, Ratis's through SLF4J's JUL provider) to
 * stderr, one line each, from the level of the system property {@value #LEVEL_PROPERTY} (a
 * {@link Level} name: INFO, the default, or FINE for debug lines, WARNING, ...).
 */
final class Logging {
  static final String LEVEL_PROPERTY = "shale.log.level";

  /**
   * Ratis, the Raft library under the cluster map, logs at INFO what are debug lines to an
   * operator of Shale: its configuration (some 70 lines at each start, its gRPC transport's
   * among them), each election's votes and the transport's services; lines by the dozen per node
   * at a cluster's start. Its INFO lines are logged at
   * debug level; its warnings and errors stay what they are. What the cluster map does, Shale's
   * own membership code logs at INFO (a member joined, left, the map's version).
   */
  private static final String RATIS = "org.apache.ratis.";

  private Logging() {}

  static void configure() {
    LogManager.getLogManager().reset();
    Level level = level(System.getProperty(LEVEL_PROPERTY, "INFO"));
    ConsoleHandler handler = new ConsoleHandler(); // stderr
    handler.setFormatter(new OneLineFormatter());
    handler.setLevel(Level.ALL);
    // On the handler, not on Ratis's loggers: JUL applies a logger's filter to the records of
    // that logger only, not of its children, and Ratis has a logger per class.
    handler.setFilter(record -> {
      String logger = record.getLoggerName();
      int recordLevel = record.getLevel().intValue();
      if (logger != null && logger.startsWith(RATIS) && recordLevel > Level.FINE.intValue() && recordLevel <= Level.INFO.intValue()) {
        record.setLevel(Level.FINE);
      }
      return record.getLevel().intValue() >= level.intValue();
    });
    Logger root = Logger.getLogger("");
    root.addHandler(handler);
    root.setLevel(level);
  }

  private static Level level(String name) {
    try {
      return Level.parse(name.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(LEVEL_PROPERTY + " must be a log level (INFO, FINE, WARNING, ...): " + name);
    }
  }
}
