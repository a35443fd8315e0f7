package dev.shale.storage.core;

import dev.shale.storage.Env;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;

/**
 * Log lines for write stalls: one when a stall starts and one when it ends, at most one pair
 * per {@link #MIN_GAP_MILLIS}; stalls in between are counted and reported with the next line,
 * so an overloaded engine does not also flood its log. Guarded by the engine's write lock.
 */
final class StallLog {
  static final long MIN_GAP_MILLIS = 10_000;

  private static final System.Logger LOG = System.getLogger(StallLog.class.getName());

  private final String directory;
  private long startNanos; // guarded by the engine's lock, as is everything here
  private boolean reportedStart;
  private long lastLineNanos;
  private long unreported;
  private final Env env;

  StallLog(String directory, Env env) {
    this.directory = directory;
    this.env = env;
    this.lastLineNanos = env.nanoTime() - TimeUnit.MILLISECONDS.toNanos(MIN_GAP_MILLIS);
  }

  void started(String reason) {
    startNanos = env.nanoTime();
    if (startNanos - lastLineNanos < TimeUnit.MILLISECONDS.toNanos(MIN_GAP_MILLIS)) {
      reportedStart = false;
      unreported++;
      return;
    }
    reportedStart = true;
    lastLineNanos = startNanos;
    String earlier = unreported == 0 ? "" : " (" + unreported + " shorter stalls not logged)";
    unreported = 0;
    LOG.log(Level.WARNING, directory + ": write stall started: " + reason + earlier);
  }

  void ended() {
    if (!reportedStart) return;
    long millis = TimeUnit.NANOSECONDS.toMillis(env.nanoTime() - startNanos);
    LOG.log(Level.WARNING, directory + ": write stall ended after " + millis + " ms");
  }
}
