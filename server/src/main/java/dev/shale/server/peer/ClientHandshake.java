package dev.shale.server.peer;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.ThrottledLog;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The connecting side of the handshake (docs/format.md, "Internode protocol", "Handshake"):
 * sends the preface and HELLO, checks the server's proof before it proves anything itself, and
 * completes {@code ready} with the channel once READY came, leaving the pipeline then. Anything
 * else fails {@code ready} with a {@link HandshakeRefused} and closes the connection.
 *
 * <p>Confined to the channel's event loop.
 */
final class ClientHandshake extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(ClientHandshake.class.getName());
  // A peer that keeps refusing is retried at the reconnect rate: one line per peer per 10 s.
  private static final ThrottledLog REFUSED_LOG = new ThrottledLog(LOG, Level.ERROR, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private final Handshakes handshakes;
  private final NodeAddress server;
  private final int maxFrameBytes;
  private final Promise<Channel> ready;
  private PeerMessage.@Nullable Hello hello; // sent, waiting for the challenge
  private boolean proved; // the proof was sent, waiting for READY
  private @Nullable ScheduledFuture<?> deadline;

  ClientHandshake(Handshakes handshakes, NodeAddress server, int maxFrameBytes, Promise<Channel> ready) {
    this.handshakes = handshakes;
    this.server = server;
    this.maxFrameBytes = maxFrameBytes;
    this.ready = ready;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    deadline = ctx.executor().schedule(() -> fail(ctx, server + " did not finish the handshake within "
        + Handshakes.TIMEOUT_MILLIS + " ms"), Handshakes.TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    hello = handshakes.hello(server);
    ctx.write(Unpooled.wrappedBuffer(Frames.PREFACE));
    ctx.writeAndFlush(hello).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    ctx.fireChannelActive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (deadline != null) deadline.cancel(false);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    PeerMessage.Hello sent = hello;
    switch (msg) {
      case PeerMessage.Challenge challenge when sent != null && !proved -> onChallenge(ctx, sent, challenge);
      case PeerMessage.Ready ignored when proved -> {
        ctx.pipeline().get(FrameDecoder.class).authenticated(maxFrameBytes);
        ctx.pipeline().remove(this);
        ready.trySuccess(ctx.channel());
      }
      case PeerMessage.Refused refused -> {
        fail(ctx, server + " refused the connection: " + refused.reason());
        handshakes.refusedBy(server);
      }
      default -> {
        if (msg instanceof PeerMessage.ScanData data) data.data().release();
        fail(ctx, server + " sent a frame of type 0x" + Integer.toHexString(((PeerMessage) msg).type())
            + " out of the handshake's order");
      }
    }
  }

  private void onChallenge(ChannelHandlerContext ctx, PeerMessage.Hello sent, PeerMessage.Challenge challenge) {
    byte[] nonce = challenge.serverNonce();
    if (!handshakes.auth().isServerProof(sent.payload(), nonce, challenge.serverProof())) {
      fail(ctx, server + " cannot prove the cluster secret");
      return;
    }
    proved = true;
    ctx.writeAndFlush(new PeerMessage.Proof(handshakes.auth().clientProof(sent.payload(), nonce)))
        .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
  }

  private void fail(ChannelHandlerContext ctx, String reason) {
    if (ready.tryFailure(new HandshakeRefused(reason))) {
      REFUSED_LOG.log("handshake " + server, () -> "no peer connection to " + server + ": " + reason);
    }
    ctx.close();
  }

  /** A failed TLS handshake (with TLS between nodes) fails the dial with what to fix; the SslHandler closes. */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof SslHandshakeCompletionEvent completion && !completion.isSuccess()) {
      fail(ctx, PeerTlsFailure.reason(server, completion.cause()));
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    ready.tryFailure(new HandshakeRefused(server + " closed the connection during the handshake"));
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (PeerTlsFailure.isTls(cause)) {
      fail(ctx, PeerTlsFailure.reason(server, cause));
      return;
    }
    ready.tryFailure(new HandshakeRefused("the handshake with " + server + " failed: "
        + PeerConnections.oneLine(String.valueOf(cause.getMessage()))));
    PeerConnections.closeOnError(ctx, cause, "peer connection to " + server + " in its handshake");
  }
}
