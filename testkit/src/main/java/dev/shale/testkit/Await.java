package dev.shale.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline: the only way tests wait (never a fixed sleep). */
public final class Await {
  private Await() {}

  /** Polls {@code condition} until it holds; fails with {@code what} once {@code timeout} passes. */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pauseMillis = 5;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for: " + what);
      }
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for: " + what, e);
      }
      pauseMillis = Math.min(100, pauseMillis * 2);
    }
  }
}
