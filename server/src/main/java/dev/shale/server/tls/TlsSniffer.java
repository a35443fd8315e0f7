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
 * in clear (so curl says why), anything else is closed, and the node serves the next connection
 * as before.
 *
 * <p>One exception, so that a cluster mixing TLS and clear nodes says so by name on both sides:
 * a first byte 0x89 (the peer protocol's preface, {@code Frames.PREFACE}) goes on in clear to the
 * port's sniffer, and so to the peer handshake, which refuses it at its HELLO (a TLS port of a
 * node with peers has a cluster CA, and under one a peer must come over TLS: NodeTls.peerRefusal)
 * with a REFUSED frame and a log line naming the sender. No plaintext byte reaches any other
 * handler.
 *
 * <p>Confined to the channel's event loop.
 */
public final class TlsSniffer extends ByteToMessageDecoder {
  private static final System.Logger LOG = System.getLogger(TlsSniffer.class.getName());
  private static final int HANDSHAKE_RECORD = 0x16;
  private static final int PEER_PREFACE = 0x89; // Frames.PREFACE[0]: docs/format.md, "Internode protocol", "Transport"

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
    if (first == PEER_PREFACE) {
      ctx.pipeline().remove(this); // hands the bytes on to the port's sniffer
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
