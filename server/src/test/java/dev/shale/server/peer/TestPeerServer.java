package dev.shale.server.peer;

import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Topology;
import dev.shale.cluster.membership.StaticMembership;
import dev.shale.storage.Env;
import dev.shale.testkit.FreePort;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A real listening port with the {@link PortSniffer} in front: peer connections get the real
 * handshake and a request handler that answers every READ with ABSENT and every WRITE with
 * STORED; HTTP connections get one fixed answer. And a dialer of a node of the same cluster.
 */
final class TestPeerServer implements AutoCloseable {
  static final byte[] SECRET = "a-cluster-secret-of-some-length".getBytes(StandardCharsets.UTF_8);
  static final String HTTP_ANSWER = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nhttp";

  final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  final NodeAddress self;
  final NodeAddress client = new NodeAddress("127.0.0.1", FreePort.find());
  final List<NodeAddress> nodes;
  final ConcurrentLinkedQueue<String> authenticated = new ConcurrentLinkedQueue<>();
  private final Channel listener;

  TestPeerServer() {
    this(true);
  }

  /** {@code answering} false: requests are taken and never answered (a stalled peer). */
  TestPeerServer(boolean answering) {
    int port = FreePort.find();
    while (port == client.port()) port = FreePort.find(); // two finds may return the same free port
    self = new NodeAddress("127.0.0.1", port);
    nodes = List.of(self, client);
    PeerEndpoint endpoint = new PeerEndpoint(self, StaticMembership.of(new Topology(nodes, self)), InternalAuth.withSecret(SECRET, Env.real()::wallMillis), null, 1 << 20,
        sender -> answering ? new Answerer() : new Silent(), authenticated::add);
    listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel channel) {
            channel.pipeline().addLast("sniff", new PortSniffer(pipeline -> pipeline.addLast(new HttpAnswer()), endpoint, 10_000));
          }
        })
        .bind("127.0.0.1", port).syncUninterruptibly().channel();
  }

  /** A dialer in the name of {@code as}, with {@code secret}. */
  PeerDialer dialer(byte[] secret, NodeAddress as) {
    List<NodeAddress> itsNodes = nodes.contains(as) ? nodes : List.of(self, as);
    return new PeerDialer(as, StaticMembership.of(new Topology(itsNodes, as)), InternalAuth.withSecret(secret, Env.real()::wallMillis), null, NioSocketChannel.class,
        1 << 20, 5_000);
  }

  /** A dialer in the name of {@link #client}, a member of the server's map. */
  PeerDialer dialer() {
    return dialer(SECRET, client);
  }

  int port() {
    return self.port();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static final class Answerer extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      switch (msg) {
        case PeerMessage.Read read -> ctx.writeAndFlush(new PeerMessage.Absent(read.id()));
        case PeerMessage.Write write -> ctx.writeAndFlush(new PeerMessage.Stored(write.id()));
        default -> ctx.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      PeerConnections.closeOnError(ctx, cause, "a test connection");
    }
  }

  private static final class Silent extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      // taken, never answered
    }
  }

  private static final class HttpAnswer extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      io.netty.util.ReferenceCountUtil.release(msg);
      ctx.writeAndFlush(Unpooled.copiedBuffer(HTTP_ANSWER, StandardCharsets.US_ASCII)).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
