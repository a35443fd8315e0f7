package dev.shale.storage.util;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/** Closing what a failure or a shutdown leaves behind, where a failed close must not hide the cause. */
public final class Closeables {
  private Closeables() {}

  /**
   * Closes {@code closeable}; a failure is logged at WARNING on {@code log} (the caller's, so the
   * line names the class that gave the file up) as "closing {@code name} failed", not thrown: the
   * caller is already reporting the failure that made it give {@code closeable} up, or is done
   * with it and has nothing a close could lose.
   */
  public static void closeQuietly(AutoCloseable closeable, Object name, Logger log) {
    try {
      closeable.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.log(Level.WARNING, "closing " + name + " was interrupted: " + e);
    } catch (Exception e) {
      log.log(Level.WARNING, "closing " + name + " failed: " + e);
    }
  }
}
