package dev.shale.storage.core;

import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One INFO line per interval about the engine's background work, instead of one per flush and
 * per compaction (those go to DEBUG, java.util.logging's FINE): under load a store flushes and
 * compacts several times a second, and a line each buried starts, stops, failures and stalls.
 * The line is written by the first flush or compaction that ends once {@link #INTERVAL_MILLIS}
 * have passed since the last one, and at close; an interval with no work writes nothing.
 *
 * <p>Thread safe: the flush and compaction threads both report here.
 */
final class ActivitySummary {
  /** The shortest time between two summaries. */
  static final long INTERVAL_MILLIS = 60_000;

  private static final System.Logger LOG = System.getLogger(ActivitySummary.class.getName());

  private final String directory;
  private final LongSupplier writeStalls; // the engine's count since open
  private final LongSupplier nanoTime;
  // All guarded by this: the work since the last summary.
  private long sinceNanos;
  private long stallsBefore;
  private long flushes;
  private long flushedBytes;
  private long compactions;
  private long compactionReadBytes;
  private long compactionWrittenBytes;

  ActivitySummary(String directory, LongSupplier writeStalls, LongSupplier nanoTime) {
    this.directory = directory;
    this.writeStalls = writeStalls;
    this.nanoTime = nanoTime;
    this.sinceNanos = nanoTime.getAsLong();
  }

  synchronized void flushed(long bytes) {
    flushes++;
    flushedBytes += bytes;
    logIfDue();
  }

  synchronized void compacted(long readBytes, long writtenBytes) {
    compactions++;
    compactionReadBytes += readBytes;
    compactionWrittenBytes += writtenBytes;
    logIfDue();
  }

  /** At close: what happened since the last summary, if anything. */
  synchronized void logRemaining() {
    log(nanoTime.getAsLong());
  }

  private void logIfDue() {
    long now = nanoTime.getAsLong();
    if (now - sinceNanos >= TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS)) log(now);
  }

  private void log(long now) {
    long stalls = writeStalls.getAsLong() - stallsBefore;
    if (flushes > 0 || compactions > 0 || stalls > 0) {
      LOG.log(Level.INFO, String.format(Locale.ROOT,
          "%s, last %d s: flushed %d memtables (%.1f MB), compacted %d times (read %.1f MB, wrote %.1f MB), %d write stalls",
          directory, TimeUnit.NANOSECONDS.toSeconds(now - sinceNanos), flushes, mb(flushedBytes), compactions,
          mb(compactionReadBytes), mb(compactionWrittenBytes), stalls));
    }
    sinceNanos = now;
    stallsBefore += stalls;
    flushes = 0;
    flushedBytes = 0;
    compactions = 0;
    compactionReadBytes = 0;
    compactionWrittenBytes = 0;
  }

  private static double mb(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
