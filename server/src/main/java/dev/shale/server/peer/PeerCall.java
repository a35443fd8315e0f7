package dev.shale.server.peer;

import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * One request to a peer: made into a frame once its connection gives it an id, and answered
 * once, with the peer's answer or a {@link PeerFailure}, whichever comes first. Confined to
 * its link's event loop, as is its promise's completion.
 */
final class PeerCall {
  private final LongFunction<PeerMessage.Request> request;
  private final Promise<PeerMessage.Answer> promise;
  private long id; // 0 until written
  private @Nullable ScheduledFuture<?> timeout;

  PeerCall(LongFunction<PeerMessage.Request> request, Promise<PeerMessage.Answer> promise) {
    this.request = request;
    this.promise = promise;
  }

  /** The request as request {@code id} of its connection; the call is written from now on. */
  PeerMessage.Request written(long id) {
    this.id = id;
    return request.apply(id);
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
    if (promise.trySuccess(answer)) cancelTimeout();
    else if (answer instanceof PeerMessage.ScanData data) data.data().release();
  }

  void fail(PeerFailure failure) {
    if (promise.tryFailure(failure)) cancelTimeout();
  }

  private void cancelTimeout() {
    ScheduledFuture<?> t = timeout;
    if (t != null) t.cancel(false);
  }
}
