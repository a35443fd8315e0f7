package dev.shale.server.tls;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;

/**
 * In place of the HTTP handlers, on a TLS connection whose client may not be served (no
 * certificate of the client CA, on a port that also takes peers and so asks for a certificate
 * without requiring one: NodeTls.httpClientRefusal): answers 403 with the one-line reason, over
 * the connection's TLS, and closes. What the client sent is dropped unread; none of it runs.
 *
 * <p>Confined to the channel's event loop.
 */
public final class ClientCertificateRefusal extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(ClientCertificateRefusal.class.getName());

  private final String reason;

  public ClientCertificateRefusal(String reason) {
    this.reason = reason;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    LOG.log(System.Logger.Level.DEBUG, () -> "refused the HTTP client " + ctx.channel().remoteAddress() + ": " + reason);
    byte[] body = (reason + "\r\n").getBytes(StandardCharsets.UTF_8);
    byte[] head = ("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: "
        + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    ctx.writeAndFlush(Unpooled.wrappedBuffer(head, body)).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ReferenceCountUtil.release(msg);
  }
}
