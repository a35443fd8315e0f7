package dev.shale.cluster;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A warning logged at most once per interval, with the number of like ones left out since: a dead
 * replica or a full hint store must not flood the log at the write rate. Thread safe, lock free.
 */
final class ThrottledLog {
  private final Logger log;
  private final long intervalNanos;
  // Invariant: no line is logged before this System.nanoTime().
  private final AtomicLong nextLineNanos;
  private final AtomicLong skipped = new AtomicLong();

  ThrottledLog(Logger log, long intervalMillis) {
    this.log = log;
    this.intervalNanos = intervalMillis * 1_000_000L;
    this.nextLineNanos = new AtomicLong(System.nanoTime());
  }

  void warn(String message) {
    long now = System.nanoTime();
    long next = nextLineNanos.get();
    if (now - next < 0 || !nextLineNanos.compareAndSet(next, now + intervalNanos)) {
      skipped.incrementAndGet();
      return;
    }
    long others = skipped.getAndSet(0);
    log.log(Level.WARNING, others == 0 ? message : message + " (and " + others + " more like it since the last such line)");
  }
}
