package dev.shale.server.peer;

import dev.shale.server.http.ConnectionEvent;
import dev.shale.storage.ThrottledLog;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The accepting side of the handshake (docs/format.md, "Internode protocol", "Handshake"):
 * checks the HELLO, challenges, checks the client's proof, and on success answers READY and
 * hands the connection to the {@link PeerEndpoint}'s request handler. Anything else closes the
 * connection, with one line in the log (at most one per sender per 10 s).
 *
 * <p>Confined to the channel's event loop.
 */
final class ServerHandshake extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOG = System.getLogger(ServerHandshake.class.getName());
  // A misconfigured peer retries at its reconnect rate: one line per sender per 10 s.
  private static final ThrottledLog REFUSED_LOG = new ThrottledLog(LOG, Level.ERROR, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private final PeerEndpoint endpoint;
  private PeerMessage.@Nullable Hello hello; // taken, waiting for the proof
  private byte @Nullable [] serverNonce;
  private @Nullable ScheduledFuture<?> deadline;

  ServerHandshake(PeerEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    deadline = ctx.executor().schedule(() -> {
      refuse(ctx, "unknown", "the handshake did not end within " + Handshakes.TIMEOUT_MILLIS + " ms");
    }, Handshakes.TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (deadline != null) deadline.cancel(false);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    switch (msg) {
      case PeerMessage.Hello received when hello == null -> onHello(ctx, received);
      case PeerMessage.Proof proof when hello != null && serverNonce != null -> onProof(ctx, hello, serverNonce, proof);
      default -> {
        String sender = hello == null ? "unknown" : hello.sender();
        refuse(ctx, sender, "a frame of type 0x" + Integer.toHexString(((PeerMessage) msg).type()) + " out of the handshake's order");
      }
    }
  }

  private void onHello(ChannelHandlerContext ctx, PeerMessage.Hello received) {
    String refusal = endpoint.handshakes().tlsRefusal(ctx.channel(), received.sender());
    if (refusal == null) refusal = endpoint.handshakes().refusal(received);
    if (refusal != null) {
      refuse(ctx, received.sender(), refusal);
      return;
    }
    byte[] nonce = endpoint.handshakes().nonce();
    hello = received;
    serverNonce = nonce;
    byte[] proof = endpoint.handshakes().auth().serverProof(received.payload(), nonce);
    ctx.writeAndFlush(new PeerMessage.Challenge(nonce, proof)).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
  }

  private void onProof(ChannelHandlerContext ctx, PeerMessage.Hello hello, byte[] nonce, PeerMessage.Proof proof) {
    if (!endpoint.handshakes().auth().isClientProof(hello.payload(), nonce, proof.clientProof())) {
      refuse(ctx, hello.sender(), "wrong cluster secret");
      return;
    }
    ctx.pipeline().get(FrameDecoder.class).authenticated(endpoint.maxFrameBytes());
    ctx.pipeline().replace(this, "requests", endpoint.requestHandler(hello.sender()));
    // Before READY: once the peer has READY, this node already takes it as up (no down mark),
    // so a node whose greetings ended is used by its peers from then on.
    endpoint.peerAuthenticated(hello.sender());
    ctx.writeAndFlush(new PeerMessage.Ready()).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
  }

  private void refuse(ChannelHandlerContext ctx, String sender, String reason) {
    REFUSED_LOG.log("handshake " + sender, () -> "refusing a peer connection from " + sender + " at "
        + ctx.channel().remoteAddress() + ": " + reason);
    if (!ctx.channel().isActive()) return;
    ctx.writeAndFlush(new PeerMessage.Refused(reason)).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    // The server drains, or the peer closed its side before the handshake ended (a node that
    // stops while it greets): nothing more can come of this connection.
    if (event == ConnectionEvent.FINISH || event == ChannelInputShutdownEvent.INSTANCE) ctx.close();
    else ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    PeerConnections.closeOnError(ctx, cause, "peer connection " + ctx.channel().remoteAddress() + " in its handshake");
  }
}
