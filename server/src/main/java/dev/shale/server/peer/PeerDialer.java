package dev.shale.server.peer;

import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.Membership;
import dev.shale.server.tls.NodeTls;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Opens authenticated connections to peers (docs/format.md, "Internode protocol"): connects,
 * with TLS between nodes shakes hands in TLS (presenting this node's certificate, and accepting
 * only a node certificate of the cluster CA that names the peer's host: docs/design.md, "TLS
 * between nodes"), then sends the preface and runs the client side of the handshake. Each {@link #dial} opens a new
 * connection; the multiplexed replica connections and each scan (one
 * connection per scan) use it.
 *
 * <p>A dialed channel's pipeline is {@code "tls"} (with TLS between nodes: an SslHandler of the
 * certificate in force when it was dialed, so a reloaded certificate reaches new connections), then the frame codec: {@code "peer-frames"} (a decoder of frames
 * into {@link PeerMessage}s) and {@code "peer-encoder"} (which writes {@link PeerMessage}s as
 * frames); the caller adds its own handler last, in the listener of the dial's future, which
 * runs on the channel's loop before any frame after READY is read.
 *
 * <p>Thread safe.
 */
public final class PeerDialer {
  static final int LOW_WATER_BYTES = 1 << 20;
  static final int HIGH_WATER_BYTES = 4 << 20;

  private final Handshakes handshakes;
  private final Bootstrap bootstrap;
  private final int maxFrameBytes;

  /**
   * @param self this node, in whose name it dials
   * @param membership the cluster map, whose version its HELLOs carry
   * @param auth the cluster secret (or trusted network) the handshake proves
   * @param tls the node's TLS, under whose cluster CA every peer connection runs; null: in clear
   * @param channelType the socket channel class of the event loops' transport
   * @param maxValueBytes this node's --max-value-size: answers may be that and a key long
   * @param connectTimeoutMillis how long a TCP connect may take
   */
  public PeerDialer(
      NodeAddress self, Membership membership, InternalAuth auth, @Nullable NodeTls tls, Class<? extends Channel> channelType,
      int maxValueBytes, long connectTimeoutMillis) {
    this.handshakes = new Handshakes(self, membership, auth, tls);
    this.maxFrameBytes = Frames.maxFrameBytes(maxValueBytes);
    this.bootstrap = new Bootstrap()
        .channel(channelType)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        // Past the high mark a link fails requests at once (PeerLink): what waits to be sent to
        // a slow peer stays bounded.
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(LOW_WATER_BYTES, HIGH_WATER_BYTES))
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(connectTimeoutMillis, Integer.MAX_VALUE));
  }

  /**
   * From now on tells {@code listener} of every peer that refuses this node's HELLO (on an event
   * loop: it must not block). A member refuses a node that is not in its cluster map: one removed
   * while it was down learns of it this way (docs/design.md, "Membership").
   */
  public void onRefused(Consumer<NodeAddress> listener) {
    handshakes.onRefused(listener);
  }

  /**
   * A new connection to {@code peer} on {@code loop}; the future completes on {@code loop} with
   * the channel once the peer answered READY, or fails: the connect's own exception (such as a
   * {@link java.net.ConnectException}), or a {@link HandshakeRefused}.
   */
  public Future<Channel> dial(EventLoop loop, NodeAddress peer) {
    Promise<Channel> ready = loop.newPromise();
    ChannelFuture connect = bootstrap.clone(loop)
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel channel) {
            NodeTls tls = handshakes.tls();
            if (tls != null) channel.pipeline().addLast("tls", tls.peerClient().newHandler(channel.alloc(), peer.host(), peer.port()));
            channel.pipeline()
                .addLast("peer-frames", new FrameDecoder(FrameDecoder.Side.CLIENT))
                .addLast("peer-encoder", FrameEncoder.INSTANCE)
                .addLast("peer-handshake", new ClientHandshake(handshakes, peer, maxFrameBytes, ready));
          }
        })
        .connect(peer.host(), peer.port());
    connect.addListener(f -> {
      if (!f.isSuccess()) ready.tryFailure(f.cause());
    });
    return ready;
  }
}
