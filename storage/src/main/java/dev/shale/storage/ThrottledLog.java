package dev.shale.storage;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Log lines of failures that may repeat at the request rate (a corrupt block read by every GET, a
 * write refused after a disk error, a dead replica): each distinct failure is logged at most once
 * per interval, and its next line says how often it recurred meanwhile, "... (repeated 2171 times
 * in the last 10 s)". The engine, the cluster and the server share it.
 *
 * <p>A failure is named by a key the caller chooses: what makes two failures the same (the
 * operation, the file, the reason) and nothing that varies per request (the record's key, a
 * version). Repeats are reported with the failure's next line: a failure that stops recurring
 * leaves its last count unsaid.
 *
 * <p>Thread safe. Bounded: at most {@link #MAX_FAILURES} keys are tracked; past that, idle keys
 * are forgotten, and while all are busy the lines of new failures share one interval of their own.
 */
public final class ThrottledLog {
  /** The interval the engine and the server use. */
  public static final long DEFAULT_INTERVAL_MILLIS = 10_000;
  /** The most distinct failures tracked at once. */
  static final int MAX_FAILURES = 1_000;

  // The window of the failures past MAX_FAILURES: no caller key is null-prefixed like this one.
  private static final String OVERFLOW = "\0overflow";
  private static final String ONLY = "";

  private final Logger log;
  private final Level level;
  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

  /**
   * On the real monotonic clock. Only a log's rate limit hangs on it, no decision of the store:
   * so the loggers that are static fields, with no {@link Env} at hand, may use this one.
   */
  public ThrottledLog(Logger log, Level level, long intervalMillis) {
    this(log, level, intervalMillis, Env.real()::nanoTime);
  }

  /** On the monotonic clock {@code nanoTime} (an {@link Env}'s; tests move it by hand). */
  public ThrottledLog(Logger log, Level level, long intervalMillis, LongSupplier nanoTime) {
    if (intervalMillis <= 0) throw new IllegalArgumentException("interval must be positive, not " + intervalMillis);
    this.log = log;
    this.level = level;
    this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
    this.nanoTime = nanoTime;
  }

  /** Logs {@code line}, all lines of this log counting as one failure. */
  public void log(String line) {
    log(ONLY, () -> line);
  }

  /**
   * Logs the line of {@code failure} unless one went out less than an interval ago, in which case
   * the occurrence is only counted. {@code line} is built only when logged.
   */
  public void log(String failure, Supplier<String> line) {
    long now = nanoTime.getAsLong();
    Window window = windowOf(failure, now);
    String repeats;
    synchronized (window) {
      // Invariant: lastLineNanos is the time of this failure's last line, or an interval before
      // the window was made; repeats counts its occurrences since, none of them logged.
      long sinceLastLine = now - window.lastLineNanos;
      if (sinceLastLine < intervalNanos) {
        window.repeats++;
        return;
      }
      repeats = window.repeats == 0 ? "" : (window == windows.get(OVERFLOW)
          ? " (and " + window.repeats + " lines of other failures not logged in the last "
              + seconds(sinceLastLine) + " s: over " + MAX_FAILURES + " distinct failures)"
          : " (repeated " + window.repeats + " times in the last " + seconds(sinceLastLine) + " s)");
      window.repeats = 0;
      window.lastLineNanos = now;
    }
    log.log(level, line.get() + repeats);
  }

  private Window windowOf(String failure, long now) {
    Window known = windows.get(failure);
    if (known != null) return known;
    if (windows.size() >= MAX_FAILURES) forgetIdle(now);
    String key = windows.size() >= MAX_FAILURES ? OVERFLOW : failure;
    return windows.computeIfAbsent(key, k -> new Window(now - intervalNanos));
  }

  // A failure whose last line is an interval old: forgetting it loses at most its count of repeats.
  private void forgetIdle(long now) {
    for (Iterator<Window> it = windows.values().iterator(); it.hasNext(); ) {
      Window window = it.next();
      synchronized (window) {
        if (now - window.lastLineNanos >= intervalNanos) it.remove();
      }
    }
  }

  private static long seconds(long nanos) {
    return Math.max(1, Math.round(nanos / 1e9));
  }

  private static final class Window {
    long lastLineNanos; // guarded by this
    long repeats; // guarded by this

    Window(long lastLineNanos) {
      this.lastLineNanos = lastLineNanos;
    }
  }
}
