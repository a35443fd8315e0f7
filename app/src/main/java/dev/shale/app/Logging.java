package dev.shale.app;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/** Sends every log record (System.Logger, JUL, Netty's) to stderr, one line each. */
final class Logging {
  private Logging() {}

  static void configure() {
    LogManager.getLogManager().reset();
    ConsoleHandler handler = new ConsoleHandler(); // stderr
    handler.setFormatter(new OneLineFormatter());
    handler.setLevel(Level.ALL);
    Logger root = Logger.getLogger("");
    root.addHandler(handler);
    root.setLevel(Level.INFO);
  }
}
