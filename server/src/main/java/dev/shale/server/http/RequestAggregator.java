package dev.shale.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns the decoder's request heads and body chunks into whole requests
 * ({@link InboundRequest.Received}) whose body is the {@code byte[]} the engine keeps, enforcing
 * the value size limit and the server-wide {@link BodyBudget} before the bytes are held.
 *
 * <p>The budget counts bytes that arrived, never a length a head declares: a head alone (sent,
 * and nothing after it) holds nothing, so a few connections that declare large bodies and send
 * none cannot keep every other client's writes out. A body of at most {@link
 * #WHOLE_ARRAY_MAX_BYTES} with a Content-Length reserves its length when its first byte arrives,
 * and its bytes are copied once, into the final array allocated then. Any other body (a larger
 * one, or a chunked one, whose length is known only at its end) reserves its bytes as they
 * arrive, copied into a {@link ChunkedBody} and joined into one array at the end: two copies, and
 * the aggregator never pins Netty's buffers. Such a body reserves each byte twice (see {@link
 * #JOINED_BODY_COST}). Only PUT and POST take a body: any other request
 * that declares one is refused (400) and the connection closed, its body unread.
 *
 * <p>Refusals ({@link InboundRequest.Refused}) go downstream in request order like requests,
 * as soon as the request is known to be refused: what {@link RequestHeadCheck} refuses in the
 * head (framing, Host, Expect); 413 when the declared length or the bytes received pass
 * {@code maxValueSizeBytes}; 503 when the body does not fit in the budget; 400 (or 414/431/505)
 * when the bytes are not strict HTTP ({@link StrictServerCodec}). A refused body whose length is
 * known and small (503, a bad Host, 417) is read and dropped, so the connection stays usable;
 * every other refusal closes the connection after its answer, in stages ({@link LingeringClose}):
 * a 413's body may be endless, a framing the server does not trust cannot delimit the next
 * request, and after the decoder fails its bytes can no longer be trusted at all. So does any
 * refusal when the client waits for 100 Continue: it will not send the body.
 *
 * <p>When the client ends its side ({@link StrictServerCodec.InputEnded}), the requests received
 * are answered and the connection closes ({@link ConnectionEvent#FINISH}).
 *
 * <p>Confined to the channel's event loop.
 */
public final class RequestAggregator extends ChannelInboundHandlerAdapter {
  /**
   * The largest body with a Content-Length that is read into its final array at once: as much as
   * the decoder hands over in one chunk, so that such a body is mostly whole when it is reserved.
   */
  static final int WHOLE_ARRAY_MAX_BYTES = 64 * 1024;

  /**
   * What each byte of a body gathered in blocks reserves: the blocks and the array they are
   * joined into are both on the heap while it is joined, so the budget counts the body twice
   * until then, and once (the array) after. Counted once, two 16 MiB bodies in the 32 MiB budget
   * of a 128 MiB heap took 64 MiB and more, and with a flush's copy of a value the node ran out
   * of memory (UnsentBodiesTest, in CI).
   */
  public static final int JOINED_BODY_COST = 2;
  private static final byte[] EMPTY = new byte[0];

  private final int maxValueSizeBytes;
  private final BodyBudget budget;
  private final RequestTimeoutHandler requestTimeout;
  private final LingeringClose lingeringClose;

  // The request being received, or null between requests.
  private @Nullable HttpRequest head;
  // The current request's Content-Length, or -1 (chunked, or no request).
  private long declaredLength = -1;
  // A body of at most WHOLE_ARRAY_MAX_BYTES with a Content-Length, from its first byte: its final
  // array and how much of it has arrived.
  private byte @Nullable [] body;
  private int bodyLength;
  // Any other body, from its first byte: the bytes so far.
  private @Nullable ChunkedBody chunked;
  // Invariant: the budget bytes held for the current body; given back or handed on with it.
  private long reservedBytes;
  // The current request was refused: drop its body up to its last chunk.
  private boolean discarding;
  // The connection is being closed: ignore everything it still sends.
  private boolean closing;
  // The last request head's method, target and when it was decoded (on nanoTime), for the
  // metrics: they travel with its request or refusal. Null and 0 before the first head.
  private @Nullable HttpMethod method;
  private @Nullable String target;
  private long headNanos;
  private final LongSupplier nanoTime; // the node's Env's monotonic clock, which the metrics time requests on

  public RequestAggregator(int maxValueSizeBytes, BodyBudget budget, RequestTimeoutHandler requestTimeout,
      LingeringClose lingeringClose, LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.maxValueSizeBytes = maxValueSizeBytes;
    this.budget = budget;
    this.requestTimeout = requestTimeout;
    this.lingeringClose = lingeringClose;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg == StrictServerCodec.InputEnded.INSTANCE) {
      onInputEnded(ctx);
      return;
    }
    if (!(msg instanceof HttpRequest) && !(msg instanceof HttpContent)) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      if (msg instanceof HttpRequest request) onHead(ctx, request);
      // A FullHttpRequest (what the decoder makes of bytes that are not HTTP) is both.
      if (msg instanceof HttpContent content) onContent(ctx, content);
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void onHead(ChannelHandlerContext ctx, HttpRequest request) {
    if (closing) return;
    method = request.method();
    target = request.uri();
    headNanos = nanoTime.getAsLong();
    if (request.decoderResult().isFailure()) {
      refuseAndClose(ctx, malformedStatus(request.decoderResult().cause()),
          "malformed request: " + request.decoderResult().cause().getMessage());
      return;
    }
    // The connection closes after this request's answer, and the client may have sent more
    // (pipelined) that will not be read: close in stages so that the answer is not lost.
    if (!HttpUtil.isKeepAlive(request)) lingeringClose.arm();
    boolean waitsForContinue = HttpUtil.is100ContinueExpected(request);
    RequestHeadCheck.Refusal refusal = RequestHeadCheck.refusal(request);
    if (refusal != null) {
      if (refusal.close()) {
        refuseAndClose(ctx, refusal.status(), refusal.reason());
      } else {
        refuseBody(ctx, request, waitsForContinue, refusal.status(), refusal.reason());
      }
      return;
    }
    long declared = HttpUtil.getContentLength(request, -1L);
    boolean hasBody = declared > 0 || HttpUtil.isTransferEncodingChunked(request);
    if (hasBody && !takesBody(request.method())) {
      // Nothing here reads a GET's or DELETE's body: not worth reading, nor holding budget for.
      refuseAndClose(ctx, HttpResponseStatus.BAD_REQUEST, "a " + request.method() + " request has no body here; only PUT and POST do");
      return;
    }
    if (declared > maxValueSizeBytes) {
      // The body may be far larger than anything worth reading just to drop it.
      refuseAndClose(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, tooLarge("value is " + declared + " bytes"));
      return;
    }
    startBody(request, declared);
    if (hasBody) requestTimeout.bodyExpected();
    if (waitsForContinue) ctx.fireChannelRead(InboundRequest.ContinueExpected.INSTANCE);
  }

  private static boolean takesBody(HttpMethod method) {
    return HttpMethod.PUT.equals(method) || HttpMethod.POST.equals(method);
  }

  // Nothing is reserved or allocated until the body's first byte arrives.
  private void startBody(HttpRequest request, long declared) {
    head = request;
    declaredLength = declared;
    body = null;
    bodyLength = 0;
    chunked = null;
  }

  private void onContent(ChannelHandlerContext ctx, HttpContent content) {
    if (closing) return;
    if (content.decoderResult().isFailure()) {
      // A broken chunk: nothing after it can be delimited. If this request was already
      // answered, there is nothing left to say but goodbye.
      boolean answered = discarding;
      dropBody();
      if (answered) {
        finish(ctx);
      } else {
        refuseAndClose(ctx, HttpResponseStatus.BAD_REQUEST,
            "malformed request body: " + content.decoderResult().cause().getMessage());
      }
      return;
    }
    if (discarding) {
      if (content instanceof LastHttpContent) endRequest();
      return;
    }
    if (head == null) return; // The end of a request whose head was refused and closed.
    if (!append(ctx, content.content())) {
      // Refused: when the body goes on, the rest is dropped (discarding) up to its end, which
      // may be this very chunk.
      if (discarding && content instanceof LastHttpContent) endRequest();
      return;
    }
    if (content instanceof LastHttpContent) completeRequest(ctx);
  }

  /** Adds a chunk to the body; returns false if that got the request refused. */
  private boolean append(ChannelHandlerContext ctx, ByteBuf chunk) {
    int n = chunk.readableBytes();
    if (n == 0) return true;
    if (declaredLength > 0 && declaredLength <= WHOLE_ARRAY_MAX_BYTES) {
      if (body == null) {
        if (!budget.tryReserve(declaredLength)) {
          refuseWhileReceiving(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, overBudget());
          return false;
        }
        reservedBytes = declaredLength;
        body = new byte[(int) declaredLength];
      }
      // The decoder delivers exactly Content-Length bytes, so the array cannot overflow.
      chunk.readBytes(body, bodyLength, n);
      bodyLength += n;
      return true;
    }
    if (chunked == null) chunked = new ChunkedBody();
    if (chunked.length() + n > maxValueSizeBytes) {
      // Nothing bounds the rest of a chunked body: not worth reading just to drop it.
      refuseAndClose(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
          tooLarge("value is more than " + maxValueSizeBytes + " bytes"));
      return false;
    }
    long cost = (long) JOINED_BODY_COST * n;
    if (!budget.tryReserve(cost)) {
      refuseWhileReceiving(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, overBudget());
      return false;
    }
    reservedBytes += cost;
    chunked.append(chunk);
    return true;
  }

  private void completeRequest(ChannelHandlerContext ctx) {
    byte[] value = body != null ? body : chunked == null ? EMPTY : chunked.toArray();
    // Joined from blocks, the body is one array now: the blocks' share goes back, and what the
    // budget counts is its length.
    budget.release(reservedBytes - value.length);
    reservedBytes = value.length;
    HttpRequest request = Objects.requireNonNull(head, "a request is being received");
    InboundRequest.Received received = new InboundRequest.Received(request, value, reservedBytes, headNanos);
    // The budget bytes now travel with the request; the receiver gives them back.
    reservedBytes = 0;
    dropBody();
    endRequest();
    ctx.fireChannelRead(received);
  }

  private void refuseBody(
      ChannelHandlerContext ctx, HttpRequest request, boolean waitsForContinue,
      HttpResponseStatus status, String reason) {
    if (waitsForContinue) {
      // The client sends the body only after 100 Continue, which it will not get: the bytes
      // that follow are not a new request we could delimit, so the connection ends here.
      refuseAndClose(ctx, status, reason);
      return;
    }
    discarding = true;
    ctx.fireChannelRead(new InboundRequest.Refused(
        request.protocolVersion(), status, reason, HttpUtil.isKeepAlive(request), method, target, headNanos));
  }

  /**
   * Refuses the request whose body is arriving; the rest of the body is read and dropped (its end
   * is known: a Content-Length, or a chunked body's last chunk), so the connection stays usable.
   */
  private void refuseWhileReceiving(ChannelHandlerContext ctx, HttpResponseStatus status, String reason) {
    HttpRequest request = Objects.requireNonNull(head, "a request is being received");
    InboundRequest.Refused refused =
        new InboundRequest.Refused(request.protocolVersion(), status, reason, HttpUtil.isKeepAlive(request), method, target, headNanos);
    dropBody();
    discarding = true;
    ctx.fireChannelRead(refused);
  }

  private void refuseAndClose(ChannelHandlerContext ctx, HttpResponseStatus status, String reason) {
    dropBody();
    closing = true;
    // Nothing more is read as a request; what the client still sends is dropped while the
    // connection closes in stages, so that the answer reaches it before any reset.
    requestTimeout.requestReceived();
    lingeringClose.arm();
    // The request's version is not to be trusted (it may not have parsed): answer in 1.1.
    ctx.fireChannelRead(new InboundRequest.Refused(HttpVersion.HTTP_1_1, status, reason, false, method, target, headNanos));
  }

  private String tooLarge(String what) {
    return what + "; the limit is " + maxValueSizeBytes + " bytes";
  }

  private String overBudget() {
    return "the server holds too many request bodies (limit " + budget.limitBytes()
        + " bytes in flight); retry later";
  }

  private static HttpResponseStatus malformedStatus(Throwable cause) {
    if (cause instanceof StrictServerCodec.UnsupportedVersionException) return HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED;
    if (cause instanceof TooLongHttpLineException) return HttpResponseStatus.REQUEST_URI_TOO_LONG;
    if (cause instanceof TooLongHttpHeaderException) {
      return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
    }
    if (cause instanceof TooLongFrameException) return HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE;
    return HttpResponseStatus.BAD_REQUEST;
  }

  /** The request has been read to its last byte, kept or dropped. */
  private void endRequest() {
    head = null;
    discarding = false;
    requestTimeout.requestReceived();
  }

  /** Lets go of the current body and its budget; keeps the request state. */
  private void dropBody() {
    chunked = null;
    body = null;
    declaredLength = -1;
    budget.release(reservedBytes);
    reservedBytes = 0;
  }

  /**
   * The client sent its last byte (it half-closed): every whole request before is answered, a
   * body cut short gets a 400 (the decoder drops it without a word), then the connection
   * closes. A head cut short is dropped unanswered: there is no request to answer.
   */
  private void onInputEnded(ChannelHandlerContext ctx) {
    if (closing) return;
    if (head != null && !discarding) {
      refuseAndClose(ctx, HttpResponseStatus.BAD_REQUEST, "the connection ended before the request's body did");
      return;
    }
    dropBody();
    head = null;
    discarding = false;
    finish(ctx);
  }

  /** Reads no more; the connection closes once the requests before are answered. */
  private void finish(ChannelHandlerContext ctx) {
    closing = true;
    ctx.fireUserEventTriggered(ConnectionEvent.FINISH);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event != ConnectionEvent.REQUEST_TIMED_OUT) {
      ctx.fireUserEventTriggered(event);
      return;
    }
    boolean answered = discarding;
    dropBody();
    head = null;
    discarding = false;
    if (answered) {
      // The request was refused already; a 408 now would be a second answer to it.
      finish(ctx);
    } else {
      closing = true;
      ctx.fireUserEventTriggered(event);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    dropBody();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    dropBody();
  }
}
