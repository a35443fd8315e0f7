package dev.shale.server.http;

import dev.shale.server.metrics.HttpRequestMetrics;
import dev.shale.server.metrics.RequestRoute;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The answers one connection owes, in the order its requests arrived. HTTP/1.1 pipelining lets a
 * client send requests without waiting for answers, and the answers must come back in request
 * order; the storage calls behind them may finish in any order on the worker pool. So each
 * request takes a {@link Slot} here when it arrives, its answer is put in the slot when ready,
 * and {@link #writeReady} writes answers from the front for as long as the front one is ready.
 *
 * <p>A {@link StreamingAnswer} (a scan) takes a slot too. When it reaches the front it is
 * started and writes its own body, as fast as the client reads; the slots behind it wait, ready
 * or not, until it reports its end. So a scan between point requests is answered in its place,
 * and the requests after it are answered after its last chunk.
 *
 * <p>Answer bytes: a slot may hold bytes of the connection's {@link AnswerShare} for its answer
 * ({@link #hold}); they are given back once the answer's write has completed (it has left the
 * process), or when the answer is dropped, and not before: an answer in Netty's outbound buffer
 * is still in memory.
 *
 * <p>Metrics: each answer is timed into {@link HttpRequestMetrics} as it is handed to the
 * connection (a stream's as it ends), from its request's head decoded; answers dropped with
 * the connection are not.
 *
 * <p>Confined to the channel's event loop.
 */
final class ResponseQueue {
  // "100 Continue" in raw bytes, for the reason given in writeInterim.
  private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** The place of one answer in the connection's order. */
  static final class Slot {
    private final boolean keepAlive;
    private final boolean interim;
    private final @Nullable HttpMethod method; // the request's, for the metrics
    private final RequestRoute route; // the request's, for the metrics
    private final long startNanos; // when its head was decoded
    // Null until the answer is known: a whole response, or a stream (then afterStream too).
    private @Nullable FullHttpResponse response;
    private @Nullable StreamingAnswer stream;
    private @Nullable Runnable afterStream; // run on the event loop once the stream has ended
    private boolean streamStarted;
    private long heldBytes; // of the connection's answer share, for this answer

    private Slot(boolean keepAlive, boolean interim, @Nullable HttpMethod method, RequestRoute route, long startNanos) {
      this.keepAlive = keepAlive;
      this.interim = interim;
      this.method = method;
      this.route = route;
      this.startNanos = startNanos;
    }
  }

  private final LongConsumer releaseAnswerBytes;
  private final HttpRequestMetrics metrics;
  private final ArrayDeque<Slot> slots = new ArrayDeque<>();
  // Invariant: the number of slots in `slots` that are not interim.
  private int owed;
  // A closing answer was written, or the channel is gone: nothing more is written.
  private boolean finished;
  // writeReady is on the stack: a stream that ends inside start() must not re-enter it.
  private boolean writing;

  /**
   * {@code releaseAnswerBytes}: gives back bytes held by slots ({@link #hold}); {@code metrics}:
   * where each answer's time is recorded.
   */
  ResponseQueue(LongConsumer releaseAnswerBytes, HttpRequestMetrics metrics) {
    this.releaseAnswerBytes = releaseAnswerBytes;
    this.metrics = metrics;
  }

  /**
   * Takes the next place for a request's answer; the connection closes after it unless
   * {@code keepAlive}. {@code method}, {@code route} and {@code startNanos} (when its head was
   * decoded): the request's, for the metrics.
   */
  Slot add(boolean keepAlive, @Nullable HttpMethod method, RequestRoute route, long startNanos) {
    Slot slot = new Slot(keepAlive, false, method, route, startNanos);
    slots.addLast(slot);
    owed++;
    return slot;
  }

  /** Queues {@code 100 Continue} to go out once every answer before it has. */
  void addContinue() {
    slots.addLast(new Slot(true, true, null, RequestRoute.OTHER, 0));
  }

  /**
   * {@code slot}'s answer holds {@code bytes} of the connection's answer share from now on (they
   * replace what it held); the queue gives them back once the answer is written or dropped.
   */
  void hold(Slot slot, long bytes) {
    slot.heldBytes = bytes;
  }

  /** Gives {@code slot} its answer; the queue owns the response (and the bytes it holds) from now on. */
  void complete(Slot slot, FullHttpResponse response) {
    if (finished) {
      ReferenceCountUtil.release(response);
      releaseHeld(slot);
      return;
    }
    slot.response = response;
  }

  /**
   * Gives {@code slot} a streamed answer; {@code afterEnd} runs on the event loop once it has
   * been written whole (or cut), after the queue has moved past it.
   */
  void stream(Slot slot, StreamingAnswer answer, Runnable afterEnd) {
    if (finished) {
      answer.discard();
      return;
    }
    slot.stream = answer;
    slot.afterStream = afterEnd;
  }

  /** Tells the streaming answer in progress, if any, that the channel's writability changed. */
  void writabilityChanged() {
    Slot front = slots.peekFirst();
    if (!finished && front != null && front.streamStarted && front.stream != null) front.stream.writabilityChanged();
  }

  /** Requests received whose answers are not written yet. */
  int owed() {
    return owed;
  }

  /** Writes the ready answers at the front, in order, and flushes them; starts a stream that reaches the front. */
  void writeReady(ChannelHandlerContext ctx) {
    if (writing) return;
    writing = true;
    try {
      writeFront(ctx);
    } finally {
      writing = false;
    }
  }

  private void writeFront(ChannelHandlerContext ctx) {
    boolean wrote = false;
    while (!finished && !slots.isEmpty() && isReady(slots.peekFirst())) {
      Slot slot = slots.peekFirst();
      if (slot.stream != null) {
        if (slot.streamStarted) break; // its end moves the queue on
        slot.streamStarted = true;
        if (wrote) ctx.flush();
        wrote = false;
        slot.stream.start(ctx, slot.keepAlive, () -> streamEnded(ctx, slot));
        continue; // it may have ended at once (a refusal)
      }
      slots.pollFirst();
      if (slot.interim) {
        writeInterim(ctx);
      } else {
        owed--;
        write(ctx, slot);
      }
      wrote = true;
    }
    if (wrote) ctx.flush();
  }

  private void streamEnded(ChannelHandlerContext ctx, Slot slot) {
    if (finished || slots.peekFirst() != slot) return; // discarded meanwhile
    slots.pollFirst();
    owed--;
    metrics.record(slot.method, slot.route, Objects.requireNonNull(slot.stream, "a stream's slot").statusCode(), slot.startNanos);
    // A stream that does not keep the connection alive closed it after its last byte.
    if (!slot.keepAlive) discard();
    Objects.requireNonNull(slot.afterStream, "set with the stream").run();
    writeReady(ctx);
  }

  /**
   * The channel is gone: drops every answer not written. A slot whose call is still running
   * keeps its bytes until the call's answer comes ({@link #complete} drops it then): the call
   * may still be filling them.
   */
  void discard() {
    finished = true;
    for (Slot slot : slots) {
      if (slot.response != null) {
        ReferenceCountUtil.release(slot.response);
        releaseHeld(slot);
      }
      if (slot.stream != null) slot.stream.discard();
    }
    slots.clear();
    owed = 0;
  }

  private static boolean isReady(Slot slot) {
    return slot.interim || slot.response != null || slot.stream != null;
  }

  private void write(ChannelHandlerContext ctx, Slot slot) {
    FullHttpResponse response = Objects.requireNonNull(slot.response, "a ready slot");
    metrics.record(slot.method, slot.route, response.status().code(), slot.startNanos);
    HttpUtil.setKeepAlive(response, slot.keepAlive);
    if (slot.keepAlive && slot.heldBytes == 0) {
      ctx.write(response, ctx.voidPromise());
      return;
    }
    ChannelFuture written = ctx.write(response);
    // Done, failed or cut: the bytes left Netty's buffer either way.
    if (slot.heldBytes > 0) written.addListener(ignored -> releaseHeld(slot));
    if (!slot.keepAlive) {
      written.addListener(ChannelFutureListener.CLOSE);
      discard();
    }
  }

  private void releaseHeld(Slot slot) {
    long bytes = slot.heldBytes;
    slot.heldBytes = 0;
    releaseAnswerBytes.accept(bytes);
  }

  private static void writeInterim(ChannelHandlerContext ctx) {
    // Written below the HTTP encoder on purpose: StrictServerCodec pairs each response it
    // encodes with the method of the oldest unanswered request (to omit bodies for HEAD), and
    // an interim response would consume a pairing and shift every later one by one.
    ChannelHandlerContext codec = ctx.pipeline().context(StrictServerCodec.class);
    ByteBuf bytes = Unpooled.wrappedBuffer(CONTINUE);
    codec.write(bytes, codec.voidPromise());
  }
}
