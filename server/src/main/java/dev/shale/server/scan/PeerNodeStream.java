package dev.shale.server.scan;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.handoff.GainedKeys;
import dev.shale.server.Reasons;
import dev.shale.server.peer.PeerDialer;
import dev.shale.server.peer.PeerMessage;
import dev.shale.storage.Entry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A peer's records in a cluster scan or a handoff's pull (with a handoff filter): a SCAN (docs/format.md, "Internode protocol") on a peer
 * connection of its own, dialed and authenticated for this scan on the client connection's event
 * loop and closed when the scan ends or is cut (never the replica requests' connections: a scan
 * holds its connection for as long as the client reads). The SCAN_DATA frames carry the internal
 * scan stream ({@link RecordFrames}); FAILED, a frame of another kind, or a close before the
 * stream's end frame fail the stream, never end it short.
 *
 * <p>Read on demand: the connection's autoRead is off, and it reads (one socket read at a time)
 * only while less than {@link #READ_AHEAD_BYTES} of decoded records wait for the merge. So a slow
 * client slows the peers down through TCP, and each stream holds at most the read-ahead plus
 * one frame.
 *
 * <p>Timeouts ({@code timeoutMillis}, --replica-timeout): to connect, authenticate and get the
 * stream's first piece; and, while the merge waits for this stream, for the next bytes.
 */
final class PeerNodeStream extends NodeStream {
  /** Decoded records read ahead of the merge, per stream. */
  static final long READ_AHEAD_BYTES = 256 * 1024;
  /** The scan's request id: the connection carries no other request. */
  private static final long SCAN_ID = 1;

  private final PeerDialer dialer;
  private final long timeoutMillis;
  private final byte[] start;
  private final byte @Nullable [] end;
  private final @Nullable GainedKeys gained;
  private final EventLoop loop;
  private final RecordFrames.Decoder decoder;
  private @Nullable Channel channel;
  private @Nullable ScheduledFuture<?> timeout;
  private long progress; // reads seen; the stall timeout checks it moved

  PeerNodeStream(
      NodeAddress peer, ScanRange range, PeerDialer dialer, long timeoutMillis, byte[] start, byte @Nullable [] end,
      @Nullable GainedKeys gained, EventLoop loop) {
    super(peer, range);
    this.dialer = dialer;
    this.timeoutMillis = timeoutMillis;
    this.start = start;
    this.end = end;
    this.gained = gained;
    this.loop = loop;
    this.decoder = new RecordFrames.Decoder(peer.toString());
  }

  @Override
  void begin() {
    timeout = loop.schedule(() -> {
      if (state() == State.OPENING) fail(node() + " did not answer the scan within " + timeoutMillis + " ms");
    }, timeoutMillis, TimeUnit.MILLISECONDS);
    Future<Channel> dialed = dialer.dial(loop, node());
    dialed.addListener(f -> onDialed(dialed));
  }

  private void onDialed(Future<Channel> dialed) {
    if (!dialed.isSuccess()) {
      fail("cannot connect to " + node() + ": " + dialed.cause().getMessage());
      return;
    }
    Channel ready = dialed.getNow();
    if (state() != State.OPENING) { // failed or closed meanwhile: nobody will read it
      ready.close();
      return;
    }
    channel = ready;
    // A handoff's pull is paced by its throttle, and the source should read its store at that
    // pace: with the kernel's autotuned receive buffer (up to tcp_rmem's maximum, 32 MiB here)
    // the source would stream that far ahead into it. Fixed, it stops autotuning.
    if (gained != null) ready.config().setOption(ChannelOption.SO_RCVBUF, (int) READ_AHEAD_BYTES);
    ready.config().setAutoRead(false);
    ready.pipeline().addLast("scan", new Reader());
    ready.writeAndFlush(new PeerMessage.Scan(SCAN_ID, start, end, gained));
    ready.read();
  }

  @Override
  void demand() {
    Channel open = channel; // set before the stream can be open
    if (!isOpen() || ended() || open == null) return;
    open.read();
    if (isEmpty()) armStallTimeout();
  }

  /**
   * While the merge waits for this stream, checks every {@code timeoutMillis} that bytes came in
   * meanwhile (a large record may take several frames and reads); fails the stream if none did.
   */
  private void armStallTimeout() {
    if (timeout != null && !timeout.isDone()) return;
    long seen = progress;
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
    // A dial still under way is not cancelled: its listener closes the connection it brings.
    if (channel != null) channel.close();
    decoder.release();
  }

  /** The last handler of the scan's connection: SCAN_DATA frames, up to the stream's end frame. */
  private final class Reader extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      progress++;
      switch (msg) {
        case PeerMessage.ScanData data when data.id() == SCAN_ID -> onData(data);
        case PeerMessage.ScanData data -> {
          data.data().release();
          fail(node() + " sent scan data of request " + data.id() + ", not " + SCAN_ID);
        }
        case PeerMessage.Failed failed -> fail(node() + " failed the scan: " + failed.reason());
        default -> fail(node() + " answered the scan with a frame of type 0x" + Integer.toHexString(((PeerMessage) msg).type()));
      }
    }

    private void onData(PeerMessage.ScanData data) {
      if (isClosed()) {
        data.data().release();
        return;
      }
      if (state() == State.OPENING) {
        if (timeout != null) timeout.cancel(false);
        opened();
      }
      decoder.feed(data.data());
      try {
        Entry entry;
        while ((entry = decoder.next()) != null) {
          if (!accept(entry)) return;
        }
      } catch (RecordFrames.FormatException e) {
        fail(Reasons.oneLine(e.getMessage()));
        return;
      }
      if (decoder.ended()) end();
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
