package dev.shale.server.http;

import java.util.ArrayDeque;
import java.util.function.LongPredicate;

/**
 * Starts one connection's storage calls in an order that keeps HTTP's promise to pipelining
 * clients (RFC 9112 section 9.3.2: only requests with safe methods may be processed in
 * parallel): reads may run side by side, but a write runs alone, after every earlier call has
 * finished and before any later one starts. So a pipelined PUT followed by a GET of the same id
 * reads the PUT's value, as it would one request at a time.
 *
 * <p>A call that reads a value first takes the answer bytes it may need ({@code answerBytes},
 * from the connection's {@link AnswerShare}); while it cannot, it and every call after it wait,
 * and {@link #resume} tries again.
 *
 * <p>Confined to the channel's event loop. Every started call must be reported with
 * {@link #finished}.
 */
final class CallOrder {
  private record Waiting(boolean write, long answerBytes, Runnable start) {}

  private final LongPredicate takeAnswerBytes;
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private int running;
  // Invariant: writeRunning implies running == 1.
  private boolean writeRunning;
  private boolean starting;

  /** {@code takeAnswerBytes}: takes the bytes a read's answer may need, or says they are not to be had now. */
  CallOrder(LongPredicate takeAnswerBytes) {
    this.takeAnswerBytes = takeAnswerBytes;
  }

  /** Runs {@code start} (which begins the call) now or once the calls before it allow. */
  void submit(boolean write, Runnable start) {
    submit(write, 0, start);
  }

  /** {@link #submit(boolean, Runnable)} for a call whose answer may need {@code answerBytes}, taken before it starts. */
  void submit(boolean write, long answerBytes, Runnable start) {
    waiting.addLast(new Waiting(write, answerBytes, start));
    startReady();
  }

  /** A call that {@link #submit} started has finished. */
  void finished(boolean write) {
    running--;
    if (write) writeRunning = false;
    startReady();
  }

  /** Answer bytes may be had again: starts the calls waiting for them. */
  void resume() {
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

  // Asked last: the answer bytes are taken only by a call that starts.
  private boolean canStart(Waiting next) {
    return !writeRunning && (!next.write() || running == 0)
        && (next.answerBytes() == 0 || takeAnswerBytes.test(next.answerBytes()));
  }
}
