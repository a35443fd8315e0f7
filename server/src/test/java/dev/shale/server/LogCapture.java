package dev.shale.server;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The lines a named logger writes while open: System.Logger writes through java.util.logging,
 * where a handler of our own sees every record the logger lets through.
 */
public final class LogCapture extends Handler implements AutoCloseable {
  // Held strongly: java.util.logging keeps loggers only weakly, and a collected one loses the handler.
  private final Logger logger;
  private final List<String> lines = new ArrayList<>(); // guarded by this

  private LogCapture(String name) {
    this.logger = Logger.getLogger(name);
  }

  public static LogCapture of(String loggerName) {
    LogCapture capture = new LogCapture(loggerName);
    capture.logger.addHandler(capture);
    return capture;
  }

  public synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public synchronized void publish(LogRecord record) {
    lines.add(record.getLevel() + " " + record.getMessage());
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
  }
}
