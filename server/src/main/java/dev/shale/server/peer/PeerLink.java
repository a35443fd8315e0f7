package dev.shale.server.peer;

import dev.shale.cluster.NodeAddress;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.concurrent.Future;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The connection to one peer on one event loop, carrying many requests at once, their answers
 * matched by id (docs/design.md, "Peer messaging"). Requests come from this loop (the client
 * connection's), so nothing about a request crosses threads.
 *
 * <ul>
 *   <li><b>Coalesced writes</b>: a request is written without a flush; the first one of a loop
 *       turn schedules one flush, so a burst costs one syscall, not one per request.
 *   <li><b>Bounded</b>: at most {@code maxCalls} requests in flight or waiting for the
 *       connection, and nothing more while the connection's write buffer is over its high-water
 *       mark; past either a request fails at once. A background call (a clock probe) is not
 *       counted: the node's own once-a-second requests never take a client's room.
 *   <li><b>Timeouts and dead links</b>: each request fails after {@code timeoutMillis}; a
 *       connection on which a request timed out while nothing at all was read for a whole
 *       timeout is taken as dead (a partition, a stopped peer) and closed; the next request
 *       reconnects.
 *   <li><b>Down mark</b> ({@link DownMark}, shared by the peer's links): a failed connection
 *       attempt makes requests fail at once for a brief back-off; a reconnect in flight makes
 *       them wait for it.
 * </ul>
 *
 * <p>Confined to {@code loop}.
 */
final class PeerLink {
  private final NodeAddress peer;
  private final EventLoop loop;
  private final PeerDialer dialer;
  private final DownMark down;
  private final long timeoutMillis;
  private final int maxCalls;

  private @Nullable Channel channel; // authenticated and open, or null
  // Whether channel is set, for the metrics thread (channel itself is confined to the loop).
  private volatile boolean connectedNow;
  private boolean connecting;
  private boolean closed;
  private final ArrayDeque<PeerCall> waiting = new ArrayDeque<>(); // for the connection being made
  private final LongObjectHashMap<PeerCall> inFlight = new LongObjectHashMap<>(); // written, by id
  private int background; // of the calls in flight or waiting, the background ones
  private long nextId = 1;
  private boolean flushScheduled;
  private final LongSupplier nanoTime; // the node's Env's monotonic clock
  private long lastReadNanos;

  PeerLink(NodeAddress peer, EventLoop loop, PeerDialer dialer, DownMark down, long timeoutMillis, int maxCalls,
      LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.lastReadNanos = nanoTime.getAsLong();
    this.peer = peer;
    this.loop = loop;
    this.dialer = dialer;
    this.down = down;
    this.timeoutMillis = timeoutMillis;
    this.maxCalls = maxCalls;
  }

  EventLoop loop() {
    return loop;
  }

  /** Whether the link has an open, authenticated connection; from any thread. */
  boolean isConnected() {
    return connectedNow;
  }

  /** Sends {@code call}, or fails it at once; on the loop. */
  void send(PeerCall call) {
    if (closed) {
      call.fail(PeerFailure.unavailable("this node is shutting down"));
      return;
    }
    if (!call.isBackground() && inFlight.size() + waiting.size() - background >= maxCalls) {
      call.fail(PeerFailure.unavailable(maxCalls + " requests to " + peer + " are in flight from this event loop (--peer-queue);"
          + " retry later"));
      return;
    }
    if (call.isBackground()) {
      background++;
      call.whenDone(() -> background--);
    }
    Channel open = channel;
    if (open != null) {
      if (!open.isWritable()) {
        call.fail(PeerFailure.unavailable("the connection to " + peer + " has more unsent bytes than its high-water mark"
            + " (the peer or the network is slow); retry later"));
        return;
      }
      startTimeout(call);
      write(open, call);
      return;
    }
    if (!connecting) {
      long downMillis = down.remainingMillis();
      if (downMillis > 0) {
        call.fail(PeerFailure.unavailable(peer + " is down (a connection to it failed; the next attempt in "
            + downMillis + " ms)"));
        return;
      }
      connect(!call.isBackground());
    }
    startTimeout(call);
    waiting.add(call);
  }

  /**
   * Opens the connection now if there is none and the peer is not marked down; on the loop. A
   * greeting: its failure does not mark the peer down (at a cluster's start the peers are not
   * all up yet, and their own greetings will say when they are). Returns the attempt, done (on
   * the loop) once the handshake ended or failed; null when none was made.
   */
  @Nullable Future<Channel> connectIfIdle() {
    return channel == null && !connecting && !closed && down.remainingMillis() == 0 ? connect(false) : null;
  }

  // marksDown: a failure marks the peer down (an attempt a request waits for).
  private Future<Channel> connect(boolean marksDown) {
    connecting = true;
    Future<Channel> dialed = dialer.dial(loop, peer);
    dialed.addListener(f -> { // on the loop
      connecting = false;
      if (f.isSuccess()) connected(dialed.getNow());
      else connectFailed(f.cause(), marksDown || waiting.stream().anyMatch(call -> !call.isBackground()));
    });
    return dialed;
  }

  private void connected(Channel opened) {
    if (closed) {
      opened.close();
      return;
    }
    down.cleared();
    channel = opened;
    connectedNow = true;
    lastReadNanos = nanoTime.getAsLong();
    opened.pipeline().addLast("peer-link", new Answers());
    while (!waiting.isEmpty()) {
      PeerCall call = waiting.poll();
      if (!call.isDone()) write(opened, call);
    }
  }

  private void connectFailed(Throwable cause, boolean marksDown) {
    if (marksDown) down.failed();
    String reason = (cause instanceof HandshakeRefused ? "" : "cannot connect to " + peer + ": ")
        + PeerConnections.oneLine(String.valueOf(cause.getMessage()));
    while (!waiting.isEmpty()) waiting.poll().fail(PeerFailure.unavailable(reason));
  }

  private void write(Channel open, PeerCall call) {
    long id = nextId++;
    inFlight.put(id, call);
    open.write(call.written(id), open.voidPromise());
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(this::flush);
    }
  }

  private void flush() {
    flushScheduled = false;
    Channel open = channel;
    if (open != null) open.flush();
  }

  private void startTimeout(PeerCall call) {
    call.setTimeout(loop.schedule(() -> timedOut(call), timeoutMillis, TimeUnit.MILLISECONDS));
  }

  private void timedOut(PeerCall call) {
    if (call.isDone()) return;
    if (!call.wasWritten()) {
      waiting.remove(call);
      call.fail(PeerFailure.unavailable("no connection to " + peer + " within " + timeoutMillis + " ms"));
      return;
    }
    inFlight.remove(call.id());
    call.fail(PeerFailure.timedOut(peer + " did not answer within " + timeoutMillis + " ms"));
    Channel open = channel;
    long silentNanos = nanoTime.getAsLong() - lastReadNanos;
    if (open != null && silentNanos >= TimeUnit.MILLISECONDS.toNanos(timeoutMillis)) {
      // Nothing at all came back for a whole timeout: a dead or partitioned link, whose TCP
      // connection may take minutes to notice. Close it; the next request reconnects.
      open.close();
    }
  }

  /** Closes the connection; requests in flight or waiting fail. */
  void close() {
    closed = true;
    Channel open = channel;
    if (open != null) open.close();
    while (!waiting.isEmpty()) waiting.poll().fail(PeerFailure.unavailable("this node is shutting down"));
  }

  /** The last handler of the link's connection: answers to their calls. */
  private final class Answers extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      lastReadNanos = nanoTime.getAsLong();
      down.cleared(); // a frame from the peer: it is up
      if (!(msg instanceof PeerMessage.Answer answer)) {
        // A handshake frame after READY: the peer is out of step.
        PeerConnections.closeOnError(ctx, new IllegalStateException(peer + " sent a frame of type 0x"
            + Integer.toHexString(((PeerMessage) msg).type()) + " after the handshake"), "peer connection to " + peer);
        return;
      }
      PeerCall call = inFlight.remove(answer.id());
      if (call != null) {
        call.answer(answer);
      } else if (answer instanceof PeerMessage.ScanData data) {
        data.data().release(); // a request that timed out: dropped
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (channel == ctx.channel()) {
        channel = null;
        connectedNow = false;
      }
      PeerFailure closedBeforeAnswer = PeerFailure.timedOut(peer + " closed the connection before answering");
      for (PeerCall call : inFlight.values()) call.fail(closedBeforeAnswer);
      inFlight.clear();
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      PeerConnections.closeOnError(ctx, cause, "peer connection to " + peer);
    }
  }
}
