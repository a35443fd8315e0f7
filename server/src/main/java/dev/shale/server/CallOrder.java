package dev.shale.server;

import java.util.ArrayDeque;

/**
 * Starts one connection's storage calls in an order that keeps HTTP's promise to pipelining
 * clients (RFC 9112 section 9.3.2: only requests with safe methods may be processed in
 * parallel): reads may run side by side, but a write runs alone, after every earlier call has
 * finished and before any later one starts. So a pipelined PUT followed by a GET of the same id
 * reads the PUT's value, as it would one request at a time.
 *
 * <p>Confined to the channel's event loop. Every started call must be reported with
 * {@link #finished}.
 */
final class CallOrder {
  private record Waiting(boolean write, Runnable start) {}

  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private int running;
  // Invariant: writeRunning implies running == 1.
  private boolean writeRunning;
  private boolean starting;

  /** Runs {@code start} (which begins the call) now or once the calls before it allow. */
  void submit(boolean write, Runnable start) {
    waiting.addLast(new Waiting(write, start));
    startReady();
  }

  /** A call that {@link #submit} started has finished. */
  void finished(boolean write) {
    running--;
    if (write) writeRunning = false;
    startReady();
  }

  private void startReady() {
    // A call that finishes inside start.run() (inline storage calls, refusals) re-enters
    // here; the loop below picks up whatever that allowed.
    if (starting) return;
    starting = true;
    try {
      while (!waiting.isEmpty() && canStart(waiting.peekFirst())) {
        Waiting next = waiting.pollFirst();
        running++;
        if (next.write()) writeRunning = true;
        next.start().run();
      }
    } finally {
      starting = false;
    }
  }

  private boolean canStart(Waiting next) {
    return !writeRunning && (!next.write() || running == 0);
  }
}
