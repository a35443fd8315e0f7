package dev.shale.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.URI;
import java.util.concurrent.ThreadFactory;

/** The client's event loops: native epoll where Netty has it, NIO otherwise. */
final class EventLoops {
  private EventLoops() {}

  static EventLoopGroup group(int threads) {
    IoHandlerFactory io = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    ThreadFactory named = Thread.ofPlatform().name("shale-load-", 0).daemon(true).factory();
    return new MultiThreadIoEventLoopGroup(threads, named, io);
  }

  static String transport() {
    return Epoll.isAvailable() ? "epoll" : "nio";
  }

  /** A bootstrap to {@code url}'s host and port, TCP_NODELAY on; callers clone it per loop. */
  static Bootstrap bootstrap(EventLoopGroup group, URI url) {
    return new Bootstrap()
        .group(group)
        .channel(Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
        .remoteAddress(url.getHost(), port(url));
  }

  static int port(URI url) {
    if (url.getPort() > 0) return url.getPort();
    return "https".equals(url.getScheme()) ? 443 : 80;
  }
}
