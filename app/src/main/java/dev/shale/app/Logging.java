package dev.shale.app;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * Sends every log record (System.Logger, JUL, Netty's) to stderr, one line each, from the level
 * of the system property {@value #LEVEL_PROPERTY} (a {@link Level} name: INFO, the default, or
 * FINE for debug lines, WARNING, ...).
 */
final class Logging {
  static final String LEVEL_PROPERTY = "shale.log.level";

  /**
   * Ratis's Netty transport puts Netty's {@code LoggingHandler} at INFO on its channels: a line for
   * every read, bind and connection of the Raft group. They are debug lines; they are logged as such.
   */
  private static final String RAFT_CHANNEL_EVENTS = "org.apache.ratis.thirdparty.io.netty.handler.logging.LoggingHandler";

  // JUL holds loggers weakly: this reference keeps the filter set on it.
  private static @Nullable Logger raftChannelEvents;

  private Logging() {}

  static void configure() {
    LogManager.getLogManager().reset();
    ConsoleHandler handler = new ConsoleHandler(); // stderr
    handler.setFormatter(new OneLineFormatter());
    handler.setLevel(Level.ALL);
    Logger root = Logger.getLogger("");
    root.addHandler(handler);
    Level level = level(System.getProperty(LEVEL_PROPERTY, "INFO"));
    root.setLevel(level);
    raftChannelEvents = Logger.getLogger(RAFT_CHANNEL_EVENTS);
    raftChannelEvents.setFilter(record -> {
      if (record.getLevel().intValue() <= Level.INFO.intValue()) record.setLevel(Level.FINE);
      return record.getLevel().intValue() >= level.intValue();
    });
  }

  private static Level level(String name) {
    try {
      return Level.parse(name.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(LEVEL_PROPERTY + " must be a log level (INFO, FINE, WARNING, ...): " + name);
    }
  }
}
