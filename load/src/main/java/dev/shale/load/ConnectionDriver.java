package dev.shale.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.util.ReferenceCountUtil;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One connection driven on wrk2's model. Request i is due at {@code firstDueNanos + i *
 * intervalNanos}; one request is in flight at a time (no pipelining). When an answer comes
 * before the next request is due, the next one waits for its time; when it comes late, the
 * next one goes at once. Either way its latency is taken from when it was DUE, not from when
 * it went: a server that stalls shows the stall in every request that queued behind it
 * (coordinated omission corrected).
 *
 * <p>Requests due before {@code windowStartNanos} are the warmup: sent, not recorded. No
 * request due at or after {@code endNanos} is sent, and no late one once that time passed (the
 * backlog of a stalled server is counted as unsent, not sent after the run).
 *
 * <p>Confined to its event loop; {@link #done} completes there once nothing is in flight.
 */
final class ConnectionDriver extends ChannelInboundHandlerAdapter {
  /** Pause before reconnecting after a lost connection, so a dead server is not hammered. */
  static final long RECONNECT_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** Answers are aggregated whole; a range answer may be large. */
  static final int MAX_ANSWER_BYTES = 64 << 20;

  private final EventLoop loop;
  private final Bootstrap bootstrap;
  private final RequestSource source;
  private final Recorder recorder;
  final CompletableFuture<Recorder> done = new CompletableFuture<>();

  // The schedule, set by start() on the event loop.
  private long firstDueNanos;
  private long intervalNanos;
  private long windowStartNanos;
  private long endNanos;

  private @Nullable Channel channel; // set by connect(), which comes first
  private long nextIndex;
  private long inFlightDueNanos = -1; // -1: nothing in flight
  private boolean finished;

  ConnectionDriver(EventLoop loop, Bootstrap bootstrap, RequestSource source, Recorder recorder) {
    this.loop = loop;
    this.bootstrap = bootstrap;
    this.source = source;
    this.recorder = recorder;
  }

  /** Connects; the future completes when the connection is up (or failed). */
  ChannelFuture connect() {
    ChannelFuture future = bootstrap.clone(loop).handler(new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        ch.pipeline().addLast(new ByteCounter(), new HttpClientCodec(), new HttpObjectAggregator(MAX_ANSWER_BYTES),
            ConnectionDriver.this);
        LoadTls.addTo(ch, source.spec()); // first: the bytes counted are those of the requests and answers
      }
    }).connect();
    channel = future.channel();
    return future;
  }

  private Channel channel() {
    return Objects.requireNonNull(channel, "connect() comes first");
  }

  @Override
  public boolean isSharable() {
    return true; // one pipeline at a time: a reconnect replaces the channel
  }

  /**
   * Starts the schedule (times from {@link System#nanoTime}): request i is due at {@code
   * firstDue + i * interval}; the ones due before {@code windowStart} are not recorded; none is
   * sent at or after {@code end}.
   */
  void start(long firstDue, long interval, long windowStart, long end) {
    loop.execute(() -> {
      firstDueNanos = firstDue;
      intervalNanos = interval;
      windowStartNanos = windowStart;
      endNanos = end;
      sendNextWhenDue();
    });
  }

  private void sendNextWhenDue() {
    if (finished || inFlightDueNanos >= 0 || intervalNanos == 0) return;
    long due = firstDueNanos + nextIndex * intervalNanos;
    long now = System.nanoTime();
    if (due >= endNanos || now >= endNanos) {
      finish(now);
      return;
    }
    if (due > now) {
      loop.schedule(() -> sendWhenTimerFires(due), due - now, TimeUnit.NANOSECONDS);
      return;
    }
    if (!channel().isActive()) return; // the reconnect resumes the schedule
    send(due);
  }

  /**
   * A request waited for its time: it goes even if the timer fired a little after the end, since
   * it was due before (only a backlog of late requests is cut at the end, not the schedule).
   */
  private void sendWhenTimerFires(long due) {
    if (finished || inFlightDueNanos >= 0) return;
    if (!channel().isActive()) return; // the reconnect resumes the schedule
    send(due);
  }

  private void send(long due) {
    nextIndex++;
    inFlightDueNanos = due;
    FullHttpRequest request = source.next();
    Channel sending = channel();
    sending.writeAndFlush(request).addListener(f -> {
      if (!f.isSuccess() && !finished) {
        recorder.writeErrors++;
        sending.close();
      }
    });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (!(msg instanceof FullHttpResponse response) || inFlightDueNanos < 0) return;
      long now = System.nanoTime();
      record(now, inFlightDueNanos, response.status().code());
      inFlightDueNanos = -1;
      sendNextWhenDue();
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  /**
   * Records an answer's latency when it arrived in the measured interval (the backlog of a stall
   * during the warmup shows) or was due in it (a stall at the end shows); counts it toward the
   * achieved rate when it arrived in the interval, as wrk2 does.
   */
  private void record(long now, long due, int status) {
    boolean arrivedInWindow = now >= windowStartNanos && now < endNanos;
    long micros = (now - due) / 1_000;
    if (arrivedInWindow || due >= windowStartNanos) {
      recorder.recordLatency(micros);
      recorder.recordStatus(status);
    }
    if (arrivedInWindow) recorder.countAnswer(now - windowStartNanos, micros);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!finished) recorder.readErrors++;
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (finished) return;
    if (inFlightDueNanos >= 0) {
      recorder.readErrors++;
      inFlightDueNanos = -1;
    }
    loop.schedule(this::reconnect, RECONNECT_DELAY_NANOS, TimeUnit.NANOSECONDS);
  }

  private void reconnect() {
    if (finished) return;
    if (System.nanoTime() >= endNanos) {
      finish(System.nanoTime());
      return;
    }
    connect().addListener(f -> {
      if (f.isSuccess()) {
        sendNextWhenDue();
      } else {
        recorder.connectErrors++;
        loop.schedule(this::reconnect, RECONNECT_DELAY_NANOS, TimeUnit.NANOSECONDS);
      }
    });
  }

  /** No more requests: count the ones due in the window that never went, and close. */
  private void finish(long now) {
    if (finished) return;
    finished = true;
    long dueBy = Math.min(now, endNanos);
    long lastDueIndex = dueBy <= firstDueNanos ? -1 : (dueBy - firstDueNanos - 1) / intervalNanos;
    long firstWindowIndex = Math.max(0, ceilDiv(windowStartNanos - firstDueNanos, intervalNanos));
    long unsentFrom = Math.max(nextIndex, firstWindowIndex);
    recorder.unsent += Math.max(0, lastDueIndex + 1 - unsentFrom);
    channel().close();
    done.complete(recorder);
  }

  /** Gives up on the request in flight (the run's timeout passed): it counts as a timeout. */
  void abandon() {
    loop.execute(() -> {
      if (done.isDone()) return;
      if (inFlightDueNanos >= 0) recorder.timeouts++;
      inFlightDueNanos = -1;
      finished = true;
      channel().close();
      done.complete(recorder);
    });
  }

  /**
   * Called when the run's end passed: finishes now unless a request is in flight or due before
   * the end and waiting for its timer, in which case its answer (or {@link #abandon}) finishes.
   */
  void endIfIdle() {
    loop.execute(() -> {
      boolean timerPending = firstDueNanos + nextIndex * intervalNanos < endNanos && channel().isActive();
      if (!finished && inFlightDueNanos < 0 && !timerPending) finish(System.nanoTime());
    });
  }

  private static long ceilDiv(long a, long b) {
    return a <= 0 ? 0 : (a + b - 1) / b;
  }

  /** Counts the bytes read off the socket, headers included (wrk's "MB read"). */
  private final class ByteCounter extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ByteBuf buf) recorder.bytesRead += buf.readableBytes();
      ctx.fireChannelRead(msg);
    }
  }
}
