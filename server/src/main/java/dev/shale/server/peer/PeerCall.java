package dev.shale.server.peer;

import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One request to a peer: made into a frame once its connection gives it an id, and answered
 * once, with the peer's answer or a {@link PeerFailure}, whichever comes first. Confined to
 * its link's event loop, as is its promise's completion.
 */
final class PeerCall {
  private final LongFunction<PeerMessage.Request> request;
  private final Promise<PeerMessage.Answer> promise;
  private final PeerCallTimer timer;
  private final boolean background;
  private final LongSupplier nanoTime; // the node's Env's monotonic clock, which times the call
  private final long startNanos;
  private long id; // 0 until written
  private @Nullable ScheduledFuture<?> timeout;

  /**
   * {@code background}: the node's own, not a client's (a clock probe): it takes no room of
   * {@code --peer-queue}, and a connection attempt that fails for it alone does not mark the
   * peer down ({@link PeerLink}).
   */
  PeerCall(LongFunction<PeerMessage.Request> request, Promise<PeerMessage.Answer> promise, PeerCallTimer timer, boolean background,
      LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.request = request;
    this.promise = promise;
    this.timer = timer;
    this.background = background;
    this.startNanos = nanoTime.getAsLong();
  }

  /** The request as request {@code id} of its connection; the call is written from now on. */
  PeerMessage.Request written(long id) {
    this.id = id;
    return request.apply(id);
  }

  boolean isBackground() {
    return background;
  }

  /** Runs {@code then} on the call's loop once it is answered or failed. */
  void whenDone(Runnable then) {
    promise.addListener(f -> then.run());
  }

  boolean wasWritten() {
    return id != 0;
  }

  long id() {
    return id;
  }

  boolean isDone() {
    return promise.isDone();
  }

  void setTimeout(ScheduledFuture<?> timeout) {
    this.timeout = timeout;
  }

  void answer(PeerMessage.Answer answer) {
    if (promise.trySuccess(answer)) {
      cancelTimeout();
      timer.record(PeerCallTimer.Outcome.ANSWERED, nanoTime.getAsLong() - startNanos);
    } else if (answer instanceof PeerMessage.ScanData data) data.data().release();
  }

  void fail(PeerFailure failure) {
    if (promise.tryFailure(failure)) {
      cancelTimeout();
      timer.record(failure.wasWritten() ? PeerCallTimer.Outcome.TIMED_OUT : PeerCallTimer.Outcome.UNAVAILABLE,
          nanoTime.getAsLong() - startNanos);
    }
  }

  private void cancelTimeout() {
    ScheduledFuture<?> t = timeout;
    if (t != null) t.cancel(false);
  }
}
