package dev.shale.load;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test HTTP server with a known behaviour: every request is answered "ok" {@code delayMicros}
 * after it arrives; with a capacity, requests are also served one at a time, each taking
 * 1/capacity seconds (a queue with a fixed service time, answers scheduled, no CPU burnt), so
 * the server keeps up with any rate below its capacity and falls behind above it.
 *
 * <p>Runs in the test's JVM, or as its own process ({@link #main}) so a test can SIGSTOP it.
 */
final class DelayServer implements AutoCloseable {
  private final EventLoopGroup group;
  private final Channel server;
  private final long delayNanos;
  private final long serviceNanos; // 0: no capacity limit
  private final AtomicLong busyUntilNanos = new AtomicLong();

  private DelayServer(int port, long delayMicros, double capacityPerSecond) {
    this.delayNanos = TimeUnit.MICROSECONDS.toNanos(delayMicros);
    this.serviceNanos = capacityPerSecond > 0 ? Math.round(1e9 / capacityPerSecond) : 0;
    this.group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    this.server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new Answer());
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", port)).syncUninterruptibly().channel();
  }

  /** A server on a free loopback port. */
  static DelayServer start(long delayMicros, double capacityPerSecond) {
    return new DelayServer(0, delayMicros, capacityPerSecond);
  }

  int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** When the request arriving now is answered. */
  private long answerAtNanos(long now) {
    if (serviceNanos == 0) return now + delayNanos;
    long done = busyUntilNanos.updateAndGet(busy -> Math.max(busy, now) + serviceNanos);
    return done + delayNanos;
  }

  private final class Answer extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof FullHttpRequest)) {
        ReferenceCountUtil.release(msg);
        return;
      }
      ReferenceCountUtil.release(msg);
      long now = System.nanoTime();
      ctx.executor().schedule(() -> {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
            Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII));
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 2);
        ctx.writeAndFlush(response);
      }, answerAtNanos(now) - now, TimeUnit.NANOSECONDS);
    }
  }

  /** {@code DelayServer <port> <delayMicros>}: runs until killed; prints "listening <port>" when up. */
  public static void main(String[] args) throws InterruptedException {
    DelayServer server = new DelayServer(Integer.parseInt(args[0]), Long.parseLong(args[1]), 0);
    System.out.println("listening " + server.port());
    System.out.flush();
    server.server.closeFuture().sync();
  }
}
