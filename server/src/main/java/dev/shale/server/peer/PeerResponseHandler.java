package dev.shale.server.peer;

import dev.shale.server.Reasons;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.pool.ChannelPool;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * The last handler of a connection to a peer: hands the answer to the {@link ForwardCall} in
 * progress and gives the connection back to its pool, exactly once per call: after a whole
 * answer (closed first if the peer does not keep it alive), or when the connection closes.
 *
 * <p>Confined to the channel's event loop.
 */
final class PeerResponseHandler extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(PeerResponseHandler.class.getName());

  private final ChannelPool pool;
  private @Nullable ForwardCall call; // the call this connection carries, or null when idle

  PeerResponseHandler(ChannelPool pool) {
    this.pool = pool;
  }

  /** Sends {@code call}'s request; the connection is the call's until its answer or close. */
  void send(ChannelHandlerContext ctx, ForwardCall call) {
    var request = call.takeRequest(ctx.channel());
    if (request == null) { // timed out while waiting for this connection
      pool.release(ctx.channel());
      return;
    }
    this.call = call;
    ctx.writeAndFlush(request).addListener(f -> {
      if (!f.isSuccess()) ctx.close(); // channelInactive fails the call and releases
    });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpResponse response) || call == null) {
      ReferenceCountUtil.release(msg);
      ctx.close(); // an answer nobody asked for: the connection is out of step
      return;
    }
    ForwardCall done = call;
    call = null;
    boolean keepAlive = HttpUtil.isKeepAlive(response);
    done.succeed(response);
    if (keepAlive && ctx.channel().isActive()) {
      pool.release(ctx.channel());
    } else {
      ctx.close();
      pool.release(ctx.channel());
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (call != null) {
      ForwardCall done = call;
      call = null;
      done.fail(ForwardFailure.unavailable(done.peer() + " closed the connection before answering"));
      pool.release(ctx.channel());
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    // An idle pooled connection is closed before the peer's own idle timeout does it, so that a
    // request rarely meets a connection the peer is closing.
    if (event instanceof IdleStateEvent && call == null) ctx.close();
    else ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!(cause instanceof java.io.IOException)) {
      LOG.log(Level.WARNING, () -> "closing connection to peer " + ctx.channel().remoteAddress() + ": "
          + Reasons.oneLine(cause.toString()));
    }
    ctx.close();
  }
}
