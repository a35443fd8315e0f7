package dev.shale.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a test's independent request loops at once, one thread each (e.g. the read-back of every
 * key through each node): a loop of sequential requests leaves the nodes mostly waiting for the
 * next one, so loops through different nodes side by side take about the time of one. What each
 * loop asserts is unchanged; the first failure, with its message, fails the caller.
 */
public final class AtOnce {
  /** One loop: may throw anything a test may (assertion errors, I/O exceptions). */
  public interface Loop<T> {
    void run(T item) throws Exception;
  }

  private AtOnce() {}

  /** Runs {@code loop} for every item of {@code items} on a thread of its own and waits for all. */
  public static <T> void each(List<T> items, Loop<? super T> loop) {
    try (ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, items.size()))) {
      List<Future<?>> runs = new ArrayList<>();
      for (T item : items) {
        runs.add(threads.submit(() -> {
          loop.run(item);
          return null;
        }));
      }
      try {
        for (Future<?> run : runs) await(run);
      } catch (AssertionError | RuntimeException e) {
        threads.shutdownNow(); // the other loops are interrupted rather than run to their end
        throw e;
      }
    }
  }

  private static void await(Future<?> run) {
    try {
      run.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for a loop", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof AssertionError assertion) throw assertion;
      if (cause instanceof RuntimeException runtime) throw runtime;
      throw new AssertionError(cause);
    }
  }
}
