package dev.shale.server.peer;

import dev.shale.cluster.InternalAuth;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One request on its way to a peer. Its promise completes exactly once, with the peer's answer
 * or a {@link ForwardFailure}, whichever comes first: the answer, a failure to connect, the
 * connection closing, or the timeout. The promise's listeners run on the event loop of the
 * client's connection.
 *
 * <p>Thread safe: the promise arbitrates between the threads that may finish the call (the
 * connection pool's, the peer connection's and the client connection's event loops).
 */
final class ForwardCall {
  private final FullHttpRequest request;
  // The InternalAuth.HEADER value, taken when the request goes out (see takeRequest).
  private final Supplier<String> signature;
  private final Promise<FullHttpResponse> promise;
  private final String peer;
  // Set once the request is written; read by the timeout on another thread.
  private volatile @Nullable Channel channel;
  private volatile @Nullable ScheduledFuture<?> timeout;

  ForwardCall(FullHttpRequest request, Supplier<String> signature, Promise<FullHttpResponse> promise, String peer) {
    this.request = request;
    this.signature = signature;
    this.promise = promise;
    this.peer = peer;
  }

  Promise<FullHttpResponse> promise() {
    return promise;
  }

  String peer() {
    return peer;
  }

  boolean isDone() {
    return promise.isDone();
  }

  void setTimeout(ScheduledFuture<?> timeout) {
    this.timeout = timeout;
  }

  /**
   * Takes the request to write on {@code channel}, signed now; null if the call is already over.
   * Signed as it goes out rather than when it was made: its time is then that of the sending, and
   * the peer receives a sender's sequence numbers out of order only as far as requests on
   * parallel connections overtake each other, not by a whole queue of requests that waited for
   * a connection (its replay window is finite).
   */
  @Nullable FullHttpRequest takeRequest(Channel channel) {
    this.channel = channel;
    if (isDone()) return null;
    request.headers().set(InternalAuth.HEADER, signature.get());
    return request.retain();
  }

  /** Whether the request went out on a connection (then a timeout's outcome is unknown). */
  boolean wasSent() {
    return channel != null;
  }

  /** Completes with the peer's answer; false (and the answer released) if the call was already over. */
  boolean succeed(FullHttpResponse response) {
    if (promise.trySuccess(response)) {
      finished();
      return true;
    }
    ReferenceCountUtil.release(response);
    return false;
  }

  /** Completes with a failure, if not already over; closes the connection it was sent on. */
  void fail(ForwardFailure failure) {
    if (!promise.tryFailure(failure)) return;
    finished();
    Channel sentOn = channel;
    // A late answer on that connection would be taken for the next request's: drop the connection.
    if (sentOn != null) sentOn.close();
  }

  private void finished() {
    ScheduledFuture<?> t = timeout;
    if (t != null) t.cancel(false);
    ReferenceCountUtil.release(request);
  }
}
