package dev.shale.cluster;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A line logged at most once per interval, with the number of like ones left out since: a dead
 * replica, a full hint store or a misconfigured peer must not flood the log at the request rate.
 * Thread safe, lock free.
 */
public final class ThrottledLog {
  private final Logger log;
  private final Level level;
  private final long intervalNanos;
  // Invariant: no line is logged before this System.nanoTime().
  private final AtomicLong nextLineNanos;
  private final AtomicLong skipped = new AtomicLong();

  /** Warnings (the hint store and its delivery). */
  ThrottledLog(Logger log, long intervalMillis) {
    this(log, Level.WARNING, intervalMillis);
  }

  public ThrottledLog(Logger log, Level level, long intervalMillis) {
    this.log = log;
    this.level = level;
    this.intervalNanos = intervalMillis * 1_000_000L;
    this.nextLineNanos = new AtomicLong(System.nanoTime());
  }

  /** Logs {@code message} at this log's level, unless a line went out less than an interval ago. */
  public void log(String message) {
    long now = System.nanoTime();
    long next = nextLineNanos.get();
    if (now - next < 0 || !nextLineNanos.compareAndSet(next, now + intervalNanos)) {
      skipped.incrementAndGet();
      return;
    }
    long others = skipped.getAndSet(0);
    log.log(level, others == 0 ? message : message + " (and " + others + " more like it since the last such line)");
  }
}
