package dev.shale.server.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * First on a TLS port: a connection whose first byte opens a TLS handshake record (0x16, RFC 8446
 * section 5.1) gets an {@link SslHandler} of the context in force now, and what follows it (the
 * port's own sniffing of HTTP or the peer protocol) sees the decrypted bytes. Anything else is
 * plaintext, which a TLS port refuses: a request line that looks like HTTP gets a one-line 400
 * in clear (so curl says why), anything else is closed. Either way no plaintext byte reaches the
 * handlers behind, and the node serves the next connection as before.
 *
 * <p>Confined to the channel's event loop.
 */
public final class TlsSniffer extends ByteToMessageDecoder {
  private static final System.Logger LOG = System.getLogger(TlsSniffer.class.getName());
  private static final int HANDSHAKE_RECORD = 0x16;
  private static final byte[] PLAINTEXT_REFUSAL = ("HTTP/1.1 400 Bad Request\r\n"
      + "Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: 46\r\n\r\n"
      + "this port speaks TLS only: use https:// URLs\r\n").getBytes(StandardCharsets.US_ASCII);

  private final NodeTls tls;

  public TlsSniffer(NodeTls tls) {
    this.tls = tls;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int first = in.getUnsignedByte(in.readerIndex());
    if (first == HANDSHAKE_RECORD) {
      SslHandler ssl = tls.current().newHandler(ctx.alloc());
      ctx.pipeline().addAfter(ctx.name(), "tls-failures", new TlsFailures());
      // Replacing a ByteToMessageDecoder hands the bytes it holds to the SslHandler.
      ctx.pipeline().replace(this, "tls", ssl);
      return;
    }
    in.skipBytes(in.readableBytes());
    ctx.channel().config().setAutoRead(false);
    boolean looksLikeHttp = first >= 'A' && first <= 'Z';
    LOG.log(System.Logger.Level.DEBUG, () -> "refused plaintext on the TLS port from " + ctx.channel().remoteAddress());
    if (looksLikeHttp) {
      ctx.writeAndFlush(Unpooled.wrappedBuffer(PLAINTEXT_REFUSAL)).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.close();
    }
  }
}
