package dev.shale.server;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting for a condition with a deadline, never for a fixed time. */
final class Conditions {
  private Conditions() {}

  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TestServer.TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
      try {
        Thread.sleep(Duration.ofMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }
}
