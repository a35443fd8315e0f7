package dev.shale.bench.io;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * What one mode measured in its window: the reads that completed in it, their latencies (from
 * the moment a read was issued to the moment its thread saw it done), and what the reading
 * threads and the whole process cost in it.
 *
 * @param mode the mode
 * @param concurrency reads in flight at once: pread's threads, or uring's depth
 * @param reads reads completed in the window
 * @param seconds the window's length
 * @param latencyNanos each read's latency
 * @param readers the reading threads' CPU time and context switches in the window, summed
 * @param process the whole process's CPU time in the window (the readers, the JVM's own threads,
 *     and any io_uring worker threads the kernel started for this process), and those workers
 * @param outcome whether the mode ran
 * @param message why the mode did not run, or empty when it did
 */
record IoResult(IoMode mode, int concurrency, long reads, double seconds, Histogram latencyNanos,
    ThreadCost readers, Readers.ProcessCost process, Outcome outcome, String message) {
  /** Whether a mode ran; the JSON's {@code status}. */
  enum Outcome {
    OK, UNAVAILABLE, FAILED;

    String reportName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  static IoResult ran(IoMode mode, int concurrency, long reads, double seconds, Histogram latencyNanos,
      ThreadCost readers, Readers.ProcessCost process) {
    return new IoResult(mode, concurrency, reads, seconds, latencyNanos, readers, process, Outcome.OK, "");
  }

  static IoResult notRun(IoMode mode, int concurrency, Outcome outcome, String why) {
    return new IoResult(mode, concurrency, 0, 0, new Histogram(3), ThreadCost.ZERO, new Readers.ProcessCost(-1, -1),
        outcome, why);
  }

  boolean ran() {
    return outcome == Outcome.OK;
  }

  double readsPerSecond() {
    return seconds > 0 ? reads / seconds : 0;
  }

  double percentileMicros(double percentile) {
    return latencyNanos.getValueAtPercentile(percentile) / 1000.0;
  }

  /** A figure per read: -1 when it is unknown or no read completed. */
  double perRead(long total) {
    return total < 0 || reads == 0 ? -1 : (double) total / reads;
  }
}
