package dev.shale.storage.util;

/** Waiting for a thread to end where the wait must not be cut short: a close that must find it ended. */
public final class Joins {
  private Joins() {}

  /**
   * Waits until {@code thread} has ended, interrupted or not; an interrupt that came meanwhile is
   * set again on the calling thread when it returns.
   */
  public static void joinUninterruptibly(Thread thread) {
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }
}
