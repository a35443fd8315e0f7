package dev.shale.app;

import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into a request to stop, which the main thread carries out before it
 * exits with status 0. The JVM's default for these signals is to run the shutdown hooks and exit
 * with 128 + the signal number (143 for SIGTERM): handling the signals ourselves is what lets a
 * clean shutdown report success. {@code sun.misc.Signal} (module jdk.unsupported) is the JDK's
 * only way to do so; it is not {@code Unsafe}.
 *
 * <p>A shutdown hook covers the other ways out (SIGHUP, say): it asks for the same stop and
 * waits, bounded, for the main thread to finish it, so the engine is still closed cleanly.
 *
 * <p>Thread safe.
 */
final class ShutdownSignals {
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile @Nullable String reason; // null until a stop is requested

  /** Installs the handlers; {@code hookWaitMillis} bounds how long the shutdown hook waits. */
  static ShutdownSignals install(long hookWaitMillis) {
    ShutdownSignals signals = new ShutdownSignals();
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), signal -> signals.requestStop("SIG" + signal.getName()));
    }
    Thread hook = new Thread(() -> {
      signals.requestStop("JVM exit");
      signals.awaitStopped(hookWaitMillis);
    }, "shale-shutdown-hook");
    Runtime.getRuntime().addShutdownHook(hook);
    return signals;
  }

  /** Asks the main thread to stop; the first reason given is kept. */
  void requestStop(String why) {
    if (reason == null) reason = why;
    stopRequested.countDown();
  }

  /** Blocks until a stop is requested; returns why. */
  String awaitStopRequest() throws InterruptedException {
    stopRequested.await();
    return Objects.requireNonNull(reason, "a reason is set before the latch opens");
  }

  /** The main thread has stopped everything. */
  void markStopped() {
    stopped.countDown();
  }

  private void awaitStopped(long timeoutMillis) {
    try {
      stopped.await(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
