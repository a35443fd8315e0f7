package dev.shale.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Cuts a request that takes longer than the request timeout to arrive, head and body together:
 * the defence against clients that trickle bytes in to hold a connection and its buffers.
 *
 * <p>It sits before the HTTP decoder, so it sees raw bytes: the clock starts with the first
 * bytes read while no request is under way, and {@link RequestAggregator} stops it with
 * {@link #requestReceived} once the request's last byte is decoded (and restarts it with
 * {@link #bodyExpected} for a body still to come). On expiry it sends
 * {@link ConnectionEvent#REQUEST_TIMED_OUT} down the pipeline, and the connection is answered
 * 408 and closed. A connection that is idle between requests is not its business (see the idle
 * timeout in {@link dev.shale.server.ServerInitializer}).
 *
 * <p>Confined to the channel's event loop, like every handler of one connection.
 */
public final class RequestTimeoutHandler extends ChannelInboundHandlerAdapter {
  private final long timeoutMillis;
  private @Nullable ChannelHandlerContext ctx;
  private @Nullable ScheduledFuture<?> timer;
  private boolean receiving;
  private boolean expired;

  public RequestTimeoutHandler(long timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!receiving && !expired) {
      receiving = true;
      schedule();
    }
    ctx.fireChannelRead(msg);
  }

  /**
   * A request's head has arrived and its body is still to come: start the clock if it is not
   * running. It is not when the head came in the same read as the end of the request before
   * (pipelining), which stopped the clock that read had started.
   */
  void bodyExpected() {
    if (!receiving && !expired) {
      receiving = true;
      schedule();
    }
  }

  /** The request under way has arrived whole: stop its clock. */
  void requestReceived() {
    receiving = false;
    cancel();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancel();
  }

  private void schedule() {
    timer = ctx().executor().schedule(this::expire, timeoutMillis, TimeUnit.MILLISECONDS);
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void expire() {
    timer = null;
    if (!receiving || !ctx().channel().isActive()) return;
    if (!ctx().channel().config().isAutoRead()) {
      // The server paused reading (too many unanswered requests, or a client that does not
      // read its responses): the wait is not the request's to pay for. Give it a new period.
      schedule();
      return;
    }
    expired = true;
    receiving = false;
    ctx().fireUserEventTriggered(ConnectionEvent.REQUEST_TIMED_OUT);
  }

  private ChannelHandlerContext ctx() {
    return Objects.requireNonNull(ctx, "handlerAdded() comes first");
  }
}
