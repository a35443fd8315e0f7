package dev.shale.server.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslCompletionEvent;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import javax.net.ssl.SSLException;

/**
 * Right behind the SslHandler: a failed handshake (an untrusted or expired client certificate,
 * no common protocol, garbage) closes the connection with one debug line, as any refused
 * connection does; it is the client's fault, not the node's. Other exceptions pass on.
 */
final class TlsFailures extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(TlsFailures.class.getName());

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof SslCompletionEvent completion) {
      // Consumed here: the handlers behind know nothing of TLS, and the port's sniffer takes any
      // event for a close. The SslHandler itself closes after a peer's close_notify.
      if (completion instanceof SslHandshakeCompletionEvent && !completion.isSuccess()) {
        LOG.log(System.Logger.Level.DEBUG, () -> "TLS handshake with " + ctx.channel().remoteAddress() + " failed: " + completion.cause());
        ctx.close();
      }
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof SSLException || cause instanceof DecoderException && cause.getCause() instanceof SSLException) {
      LOG.log(System.Logger.Level.DEBUG, () -> "TLS failure with " + ctx.channel().remoteAddress() + ": " + cause.getMessage());
      ctx.close();
      return;
    }
    ctx.fireExceptionCaught(cause);
  }
}
