package dev.shale.server.peer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import dev.shale.storage.ThrottledLog;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.lang.System.Logger.Level;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Tells a peer connection from an HTTP one by its first byte, on the node's one port
 * (docs/format.md, "Internode protocol", "Transport"; Netty's "port unification"): {@code 0x89}
 * (no HTTP request starts above 0x7F) must be followed by the rest of the preface, and the
 * connection becomes a peer connection; anything else is HTTP. Either way the sniffer then
 * leaves the pipeline, handing on the bytes it saw.
 *
 * <p>Nothing was received before the sniff, so nothing is owed: any event meanwhile (the server
 * draining, the input shut) closes the connection, and so does silence for the idle timeout.
 *
 * <p>Confined to the channel's event loop.
 */
public final class PortSniffer extends ByteToMessageDecoder {
  private static final System.Logger LOG = System.getLogger(PortSniffer.class.getName());
  // Each peer retries at its reconnect rate: one line per 10 s.
  private static final ThrottledLog TLS_ON_CLEAR_PORT_LOG = new ThrottledLog(LOG, Level.WARNING, ThrottledLog.DEFAULT_INTERVAL_MILLIS);
  private static final int TLS_HANDSHAKE_RECORD = 0x16; // RFC 8446 section 5.1

  private final Consumer<ChannelPipeline> http;
  private final @Nullable PeerEndpoint peers; // null: this node takes no peer connections
  private final long timeoutMillis;
  private @Nullable ScheduledFuture<?> deadline;

  /**
   * @param http adds the HTTP handlers to the pipeline (after this one)
   * @param peers serves peer connections; null on a node without peers
   * @param timeoutMillis a connection that sends no first bytes for this long is closed (the
   *     HTTP idle timeout: before its first byte, a connection is idle)
   */
  public PortSniffer(Consumer<ChannelPipeline> http, @Nullable PeerEndpoint peers, long timeoutMillis) {
    this.http = http;
    this.peers = peers;
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    deadline = ctx.executor().schedule(() -> {
      ctx.close();
    }, timeoutMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (deadline != null) deadline.cancel(false);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int first = in.getUnsignedByte(in.readerIndex());
    if (first == TLS_HANDSHAKE_RECORD && peers != null && ctx.pipeline().get(SslHandler.class) == null) {
      // A plaintext node of a cluster met a TLS handshake: a node of its cluster started with TLS
      // among nodes without (or an https:// client). HTTP answers it 400; the log says why.
      TLS_ON_CLEAR_PORT_LOG.log("tls on clear port", () -> "a TLS handshake from " + ctx.channel().remoteAddress()
          + " on this node's plaintext port: if it is a node of this cluster, the cluster mixes nodes with TLS (--tls-cert, "
          + "--tls-cluster-ca) and nodes without (this one); give every node the same");
    }
    if (first != (Frames.PREFACE[0] & 0xFF)) {
      http.accept(ctx.pipeline());
      ctx.pipeline().remove(this);
      return;
    }
    if (in.readableBytes() < Frames.PREFACE.length) return;
    byte[] preface = new byte[Frames.PREFACE.length];
    in.readBytes(preface);
    if (peers == null || !Arrays.equals(preface, Frames.PREFACE)) {
      in.skipBytes(in.readableBytes());
      ctx.close();
      return;
    }
    ctx.pipeline().addAfter(ctx.name(), "peer-frames", new FrameDecoder(FrameDecoder.Side.SERVER))
        .addAfter("peer-frames", "peer-encoder", FrameEncoder.INSTANCE)
        .addAfter("peer-encoder", "peer-handshake", new ServerHandshake(peers));
    ctx.pipeline().remove(this);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    ctx.close();
  }
}
