package dev.shale.server.scan;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.SignedContent;
import dev.shale.server.Reasons;
import dev.shale.storage.Entry;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A peer's records in a cluster scan: the internal scan ({@link Scans#RECORDS_PATH}) over a
 * connection of its own, opened for this scan on the client connection's event loop and closed
 * when the scan ends or is cut (never the replica requests' pool: a scan holds its connection for
 * as long as the client reads).
 *
 * <p>Read on demand: the connection's autoRead is off, and it reads (one socket read at a time)
 * only while less than {@link #READ_AHEAD_BYTES} of decoded records wait for the merge. So a slow
 * client slows the peers down through TCP, and each stream holds at most the read-ahead plus
 * one frame.
 *
 * <p>Timeouts ({@code forwardTimeoutMillis}, --replica-timeout): to connect and get the answer's status line; and,
 * while the merge waits for this stream, for the next bytes.
 */
final class PeerNodeStream extends NodeStream {
  /** Decoded records read ahead of the merge, per stream. */
  static final long READ_AHEAD_BYTES = 256 * 1024;
  /** Bytes of a peer's error answer kept for the reason. */
  private static final int ERROR_BODY_BYTES = 512;

  private final Cluster cluster;
  private final String target;
  private final EventLoop loop;
  private final Class<? extends Channel> channelType;
  private final RecordFrames.Decoder decoder;
  private @Nullable Channel channel;
  private @Nullable ScheduledFuture<?> timeout;
  private long progress; // reads seen; the stall timeout checks it moved
  private @Nullable HttpResponseStatus errorStatus; // the peer refused: collect its reason
  private final StringBuilder errorBody = new StringBuilder();

  PeerNodeStream(
      NodeAddress peer, ScanRange range, Cluster cluster, String target, EventLoop loop, Class<? extends Channel> channelType) {
    super(peer, range);
    this.channelType = channelType;
    this.cluster = cluster;
    this.target = target;
    this.loop = loop;
    this.decoder = new RecordFrames.Decoder(peer.toString());
  }

  @Override
  void begin() {
    Bootstrap bootstrap = new Bootstrap()
        .group(loop)
        .channel(channelType)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.AUTO_READ, false)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(cluster.forwardTimeoutMillis(), Integer.MAX_VALUE))
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast("http", new HttpClientCodec()).addLast("records", new Reader());
          }
        });
    ChannelFuture connect = bootstrap.connect(node().host(), node().port());
    channel = connect.channel();
    long timeoutMillis = cluster.forwardTimeoutMillis();
    timeout = loop.schedule(() -> {
      if (state() == State.OPENING) fail(node() + " did not answer the scan within " + timeoutMillis + " ms");
    }, timeoutMillis, TimeUnit.MILLISECONDS);
    connect.addListener(f -> {
      if (!f.isSuccess()) {
        fail("cannot connect to " + node() + ": " + f.cause().getMessage());
        return;
      }
      if (state() != State.OPENING) return;
      connect.channel().writeAndFlush(request());
      connect.channel().read();
    });
  }

  private FullHttpRequest request() {
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, target);
    request.headers().set(HttpHeaderNames.HOST, node().id());
    request.headers().set(InternalAuth.HEADER,
        cluster.auth().sign(() -> SignedContent.of("GET", target), node(), System.currentTimeMillis()));
    request.headers().set(InternalAuth.CLUSTER_HEADER, cluster.topology().fingerprint());
    return request;
  }

  @Override
  void demand() {
    Channel open = channel; // set before the stream can be open
    if (!isOpen() || ended() || open == null) return;
    open.read();
    if (isEmpty()) armStallTimeout();
  }

  /**
   * While the merge waits for this stream, checks every {@code forwardTimeoutMillis} that bytes
   * came in meanwhile (a frame of a large value may take several reads); fails the stream if none did.
   */
  private void armStallTimeout() {
    if (timeout != null && !timeout.isDone()) return;
    long seen = progress;
    long timeoutMillis = cluster.forwardTimeoutMillis();
    timeout = loop.schedule(() -> {
      if (!isOpen() || ended() || !isEmpty()) return; // not waited for any more
      if (progress == seen) {
        fail(node() + " sent nothing for " + timeoutMillis + " ms mid-scan");
      } else {
        timeout = null; // this task, still running: not done yet
        armStallTimeout();
      }
    }, timeoutMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  void release() {
    if (timeout != null) timeout.cancel(false);
    if (channel != null) channel.close();
    decoder.release();
  }

  /** The last handler of the peer connection: status, then frames, then the end. */
  private final class Reader extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        progress++;
        if (isClosed()) return;
        if (msg instanceof HttpResponse head) onHead(head);
        if (msg instanceof HttpContent content) onContent(content);
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    private void onHead(HttpResponse head) {
      if (head.status().code() == 200) {
        if (timeout != null) timeout.cancel(false);
        opened();
      } else {
        errorStatus = head.status();
      }
    }

    private void onContent(HttpContent content) {
      if (errorStatus != null) {
        ByteBuf bytes = content.content();
        int room = ERROR_BODY_BYTES - errorBody.length();
        if (room > 0) errorBody.append(bytes.toString(bytes.readerIndex(), Math.min(room, bytes.readableBytes()), StandardCharsets.UTF_8));
        if (content instanceof LastHttpContent) {
          fail(node() + " refused the scan: " + errorStatus + ": " + errorBody.toString().strip());
        }
        return;
      }
      if (!isOpen()) return;
      decoder.feed(content.content().retain());
      try {
        Entry entry;
        while ((entry = decoder.next()) != null) {
          if (!accept(entry)) return;
        }
      } catch (RecordFrames.FormatException e) {
        fail(Reasons.oneLine(e.getMessage()));
        return;
      }
      if (content instanceof LastHttpContent) {
        if (!decoder.ended()) {
          fail(node() + " ended its answer without the stream's end frame");
          return;
        }
        end();
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (isClosed()) return;
      if (state() == State.OPENING || (isOpen() && !ended() && bufferedBytes() < READ_AHEAD_BYTES)) ctx.read();
      if (isOpen()) listener().readable(PeerNodeStream.this);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!isClosed() && !ended()) fail(node() + " closed the connection mid-scan");
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail("scan stream from " + node() + " failed: " + cause);
      ctx.close();
    }
  }
}
