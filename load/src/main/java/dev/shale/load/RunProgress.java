package dev.shale.load;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A line every {@link #EVERY_NANOS} while a run goes on: whether it is warming up or measuring,
 * and how far it is, so that a 45 s run does not look hung (issue 36: nothing was printed until
 * the results). Runs on a daemon thread of its own; {@link #close} stops it.
 */
final class RunProgress implements AutoCloseable {
  static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final Thread thread;
  private volatile boolean done;

  private RunProgress(LoadSpec spec, PrintWriter out) {
    long startNanos = System.nanoTime();
    long warmupNanos = spec.warmup().toNanos();
    long totalNanos = warmupNanos + spec.duration().toNanos();
    this.thread = Thread.ofPlatform().daemon().name("shale-load-progress").unstarted(() -> {
      for (long next = startNanos + EVERY_NANOS; next - startNanos < totalNanos; next += EVERY_NANOS) {
        for (long left; !done && (left = next - System.nanoTime()) > 0; ) LockSupport.parkNanos(left);
        if (done) return;
        out.println(line(next - startNanos, warmupNanos, totalNanos));
        out.flush();
      }
    });
  }

  /** Starts printing the progress of {@code spec}'s run, which starts now, to {@code out}. */
  static RunProgress start(LoadSpec spec, PrintWriter out) {
    RunProgress progress = new RunProgress(spec, out);
    progress.thread.start();
    return progress;
  }

  /** One progress line at {@code elapsedNanos} into a run of {@code warmupNanos} then the rest of {@code totalNanos}. */
  static String line(long elapsedNanos, long warmupNanos, long totalNanos) {
    long elapsed = TimeUnit.NANOSECONDS.toSeconds(elapsedNanos);
    if (elapsedNanos <= warmupNanos) {
      return String.format(Locale.ROOT, "  %d s: warming up, %d s of %d s (not recorded)", elapsed,
          elapsed, TimeUnit.NANOSECONDS.toSeconds(warmupNanos));
    }
    return String.format(Locale.ROOT, "  %d s: measuring, %d s of %d s", elapsed,
        TimeUnit.NANOSECONDS.toSeconds(elapsedNanos - warmupNanos), TimeUnit.NANOSECONDS.toSeconds(totalNanos - warmupNanos));
  }

  @Override
  public void close() {
    done = true;
    LockSupport.unpark(thread);
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
