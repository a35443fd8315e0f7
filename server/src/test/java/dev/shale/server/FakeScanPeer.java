package dev.shale.server;

import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.Topology;
import dev.shale.cluster.membership.StaticMembership;
import dev.shale.server.peer.PeerEndpoint;
import dev.shale.server.peer.PeerMessage;
import dev.shale.server.peer.PortSniffer;
import dev.shale.storage.Env;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A peer of a cluster that answers a SCAN with a script: the real port sniffer and handshake
 * (it holds the cluster secret), then crafted SCAN_DATA frames, a FAILED or a close, in order,
 * waiting where the script says. Counts its open scan connections (those that sent a SCAN; the
 * node's own links to it, opened at its start for replica requests, are not scans').
 */
final class FakeScanPeer implements AutoCloseable {
  /** One step of the answer to a SCAN. */
  sealed interface Step {}

  /** A SCAN_DATA frame of the scan's id carrying {@code data}. */
  record Data(byte[] data) implements Step {}

  record Failed(String reason) implements Step {}

  record Close() implements Step {}

  /** Waits until the test lets it go on. */
  record Await(CountDownLatch latch) implements Step {}

  final AtomicInteger openScanConnections = new AtomicInteger();
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel listener;

  /** Listens on {@code urls}' node {@code self} (of the cluster {@code urls}, with {@code secret}). */
  FakeScanPeer(List<String> urls, int self, byte[] secret, List<Step> script) {
    int port = Integer.parseInt(urls.get(self).substring(urls.get(self).lastIndexOf(':') + 1));
    Topology topology = Topology.fromUrls(urls, "127.0.0.1", port);
    PeerEndpoint endpoint = new PeerEndpoint(topology.self(), StaticMembership.of(topology), InternalAuth.withSecret(secret, Env.real()::wallMillis), null, 1 << 20,
        sender -> new Scripted(script, openScanConnections), sender -> {});
    listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel channel) {
            channel.pipeline().addLast(new PortSniffer(pipeline -> pipeline.addLast(new ChannelInboundHandlerAdapter()), endpoint, 10_000));
          }
        })
        .bind("127.0.0.1", port).syncUninterruptibly().channel();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Plays the script, on a thread of its own (it may wait), to the first SCAN. */
  private static final class Scripted extends ChannelInboundHandlerAdapter {
    private final List<Step> script;
    private final AtomicInteger openScanConnections;

    Scripted(List<Step> script, AtomicInteger openScanConnections) {
      this.script = script;
      this.openScanConnections = openScanConnections;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof PeerMessage.Scan scan)) return;
      openScanConnections.incrementAndGet();
      ctx.channel().closeFuture().addListener(f -> openScanConnections.decrementAndGet());
      Thread.ofVirtual().start(() -> {
        try {
          for (Step step : script) {
            switch (step) {
              case Data(byte[] data) -> ctx.writeAndFlush(new PeerMessage.ScanData(scan.id(), Unpooled.wrappedBuffer(data))).sync();
              case Failed(String reason) -> ctx.writeAndFlush(new PeerMessage.Failed(scan.id(), PeerMessage.Failed.STORAGE_FAILED, reason)).sync();
              case Close() -> ctx.close().sync();
              case Await(CountDownLatch latch) -> {
                if (!latch.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("the test never let the script go on");
              }
            }
          }
        } catch (Exception e) {
          ctx.close();
        }
      });
    }
  }
}
