package dev.shale.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Closes a connection in stages when a plain close could lose the last answer (RFC 9112
 * section 9.6). Closing a socket that still has unread bytes makes the kernel send a reset,
 * and a reset can reach the client before it read the answer written just before: a client
 * still sending a refused body would see "connection reset" instead of its 413. So when the
 * connection was {@link #arm armed} (a refusal after which the client's bytes are not read),
 * a close first lets everything written go out, then shuts down the output (the client reads
 * the answer and then the end), drops whatever the client still sends, and closes once the
 * client ends its side or after {@link #LINGER_MILLIS}.
 *
 * <p>A client that half-closed (its input ended: it sends no more) gets what was written
 * before the close too: the close waits for the writes, then happens. Any other close is
 * immediate. Sits first in the pipeline, so it sees every close and every raw byte.
 *
 * <p>Confined to the channel's event loop.
 */
public final class LingeringClose extends ChannelDuplexHandler {
  /** The longest a closing connection waits for its writes and for the client's end. */
  static final long LINGER_MILLIS = 2_000;

  private boolean armed;
  // The close under way, completed once the channel is closed; null until one is asked for.
  private @Nullable ChannelPromise closing;

  /** Refused bytes may still arrive: close in stages. */
  void arm() {
    armed = true;
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    DuplexChannel channel = (DuplexChannel) ctx.channel();
    if (closing != null || !channel.isActive() || !(armed || channel.isInputShutdown())) {
      ctx.close(promise);
      return;
    }
    closing = promise;
    ctx.executor().schedule(() -> closeNow(ctx), LINGER_MILLIS, TimeUnit.MILLISECONDS);
    // Completes once every earlier write has gone out (or failed).
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFuture written) -> {
      if (!written.isSuccess() || channel.isInputShutdown()) {
        closeNow(ctx);
        return;
      }
      channel.shutdownOutput();
      channel.config().setAutoRead(true);
      ctx.read();
    });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closing != null) {
      ReferenceCountUtil.release(msg); // the client's bytes after the last answer: not read
      return;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (closing != null && event instanceof ChannelInputShutdownEvent) {
      closeNow(ctx);
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (closing != null) {
      closeNow(ctx); // a reset while lingering: nothing left to say
      return;
    }
    ctx.fireExceptionCaught(cause);
  }

  private void closeNow(ChannelHandlerContext ctx) {
    ChannelPromise promise = closing;
    if (promise != null && !promise.isDone()) ctx.close(promise);
  }
}
