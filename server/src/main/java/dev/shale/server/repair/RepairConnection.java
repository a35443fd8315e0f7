package dev.shale.server.repair;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.repair.RepairFailedException;
import dev.shale.server.Reasons;
import dev.shale.server.peer.PeerDialer;
import dev.shale.server.peer.PeerMessage;
import dev.shale.storage.Env;
import dev.shale.storage.SuppressForbidden;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One repair request (TREE or DIGESTS, docs/format.md "Repair requests") on a peer connection
 * of its own, read by a repair's thread, which blocks: the connection is dialed and
 * authenticated for it, carries the request as id 1, and is closed by {@link #close} once the
 * answer is read or given up.
 *
 * <p>Read on demand: the connection's autoRead is off and it reads one socket read at a time,
 * only when the repair has taken every frame that came before; so a long DIGESTS stream waits in
 * TCP, not in this node's memory.
 *
 * <p>{@link #next} is called by one thread; the handler runs on the connection's event loop.
 */
final class RepairConnection implements AutoCloseable {
  /** The id of the connection's one request. */
  static final long REQUEST_ID = 1;

  /** What the event loop hands the repair's thread: a frame, or the connection's end. */
  private sealed interface Event {}

  private record Frame(PeerMessage.Answer answer) implements Event {}

  private record Closed(String reason) implements Event {}

  private final NodeAddress peer;
  private final Channel channel;
  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private boolean closed; // the repair's thread saw the connection's end
  private final Env env; // the node's: a wait for the next event runs out on its clock

  private RepairConnection(NodeAddress peer, Channel channel, Env env) {
    this.env = env;
    this.peer = peer;
    this.channel = channel;
  }

  /** Dials {@code peer} and sends {@code request} (made with id 1), waiting up to {@code timeoutMillis} for the handshake. */
  @SuppressForbidden(reason = "waits on Netty's dial and handshake future, the adapter's")
  static RepairConnection send(
      PeerDialer dialer, EventLoop loop, NodeAddress peer, PeerMessage.Request request, long timeoutMillis, Env env) {
    Future<Channel> dialed = dialer.dial(loop, peer);
    if (!dialed.awaitUninterruptibly(timeoutMillis, TimeUnit.MILLISECONDS)) {
      dialed.addListener(f -> {
        if (f.isSuccess()) dialed.getNow().close();
      });
      throw new RepairFailedException("cannot connect to " + peer + " within " + timeoutMillis + " ms");
    }
    if (!dialed.isSuccess()) throw new RepairFailedException("cannot connect to " + peer + ": " + Reasons.oneLine(String.valueOf(dialed.cause())));
    Channel channel = dialed.getNow();
    RepairConnection connection = new RepairConnection(peer, channel, env);
    channel.config().setAutoRead(false);
    channel.pipeline().addLast("repair", connection.new Reader());
    channel.writeAndFlush(request);
    return connection;
  }

  /**
   * The next frame of the answer, waiting up to {@code timeoutMillis} for it.
   *
   * @throws RepairFailedException if the connection closed or nothing came in time
   */
  PeerMessage.Answer next(long timeoutMillis) {
    if (closed) throw new RepairFailedException(peer + " closed the connection");
    if (events.isEmpty()) channel.read();
    Event event;
    try {
      event = env.poll(events, timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RepairFailedException("interrupted while waiting for " + peer);
    }
    return switch (event) {
      case null -> throw new RepairFailedException(peer + " sent nothing for " + timeoutMillis + " ms");
      case Frame(PeerMessage.Answer answer) when answer.id() == REQUEST_ID -> answer;
      case Frame(PeerMessage.Answer answer) -> {
        release(answer);
        throw new RepairFailedException(peer + " answered request " + answer.id() + ", not " + REQUEST_ID);
      }
      case Closed(String reason) -> {
        closed = true;
        throw new RepairFailedException(reason);
      }
    };
  }

  @Override
  public void close() {
    channel.close();
    for (Event event; (event = events.poll()) != null; ) {
      if (event instanceof Frame(PeerMessage.Answer answer)) release(answer);
    }
  }

  private static void release(PeerMessage.Answer answer) {
    if (answer instanceof PeerMessage.ScanData data) data.data().release();
  }

  /** The connection's last handler: hands every frame, and the close, to the repair's thread. */
  private final class Reader extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof PeerMessage.Answer answer) {
        events.add(new Frame(answer));
      } else {
        ReferenceCountUtil.release(msg);
        events.add(new Closed(peer + " sent a frame that is no answer"));
        ctx.close();
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      // A read that brought only part of a frame: read on, as the repair's thread waits for it.
      if (events.isEmpty()) ctx.read();
      ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      events.add(new Closed(peer + " closed the connection before its answer ended"));
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      events.add(new Closed("the connection to " + peer + " failed: " + Reasons.oneLine(String.valueOf(cause))));
      ctx.close();
    }
  }
}
