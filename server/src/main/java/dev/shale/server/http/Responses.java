package dev.shale.server.http;

import dev.shale.server.LentValueBuf;
import dev.shale.server.Reasons;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * The responses the server sends. Values go out as {@code application/octet-stream}, wrapped,
 * not copied (a value the engine lent: its memory, as a {@link LentValueBuf}); every 4xx and 5xx
 * carries a one-line reason as {@code text/plain}; every 503 says {@code Retry-After: 1}, every
 * 507 {@code Retry-After: 10}.
 */
public final class Responses {
  static final String TEXT_UTF8 = "text/plain; charset=utf-8";
  /** A GET's answer: the version of the record it found ({@code dev.shale.storage.Versions}), in decimal. */
  public static final String VERSION_HEADER = "X-Shale-Version";
  /** On a 404 with a version: the newest record is a tombstone. */
  public static final String TOMBSTONE_HEADER = "X-Shale-Tombstone";
  /** On a GET's 200 of a value that expires: when, in milliseconds since the epoch. */
  public static final String EXPIRES_HEADER = "X-Shale-Expires";
  /** The value of {@link #TOMBSTONE_HEADER}. */
  static final String TOMBSTONE = "true";
  /** Seconds a client should wait before it retries a 503. */
  static final int RETRY_AFTER_SECONDS = 1;
  /** Seconds a client should wait before it retries a 507: freeing disk space takes a while. */
  static final int DISK_FULL_RETRY_AFTER_SECONDS = 10;

  private Responses() {}

  /** 200 with exactly {@code value}, which the response wraps: it must not change. */
  static FullHttpResponse value(HttpVersion version, byte[] value) {
    return value(version, Unpooled.wrappedBuffer(value));
  }

  /** 200 with the bytes of {@code value}, which the response owns (and releases) from now on. */
  static FullHttpResponse value(HttpVersion version, ByteBuf value) {
    FullHttpResponse response = response(version, HttpResponseStatus.OK, value);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
    return response;
  }

  /** A response without a body (201, 202). */
  static FullHttpResponse empty(HttpVersion version, HttpResponseStatus status) {
    return response(version, status, Unpooled.EMPTY_BUFFER);
  }

  /** {@code text} (one line) as text/plain. */
  static FullHttpResponse text(HttpVersion version, HttpResponseStatus status, String text) {
    byte[] body = (Reasons.oneLine(text) + "\n").getBytes(StandardCharsets.UTF_8);
    FullHttpResponse response = response(version, status, Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, TEXT_UTF8);
    return response;
  }

  /** {@code text}, whole lines each ending in a newline, as text/plain. */
  static FullHttpResponse lines(HttpVersion version, HttpResponseStatus status, String text) {
    FullHttpResponse response = response(version, status, Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, TEXT_UTF8);
    return response;
  }

  /** 200 with {@code body} (already encoded) as {@code contentType}. */
  static FullHttpResponse ok(HttpVersion version, String contentType, byte[] body) {
    FullHttpResponse response = response(version, HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    return response;
  }

  /** {@code json} (one object) as application/json. */
  static FullHttpResponse json(HttpVersion version, HttpResponseStatus status, String json) {
    byte[] body = (json + "\n").getBytes(StandardCharsets.UTF_8);
    FullHttpResponse response = response(version, status, Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    return response;
  }

  /** A 4xx or 5xx with its reason; a 503 or 507 also says when to retry. */
  public static FullHttpResponse error(HttpVersion version, HttpResponseStatus status, String reason) {
    FullHttpResponse response = text(version, status, reason);
    if (status.code() == HttpResponseStatus.SERVICE_UNAVAILABLE.code()) {
      response.headers().setInt(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
    } else if (status.code() == HttpResponseStatus.INSUFFICIENT_STORAGE.code()) {
      response.headers().setInt(HttpHeaderNames.RETRY_AFTER, DISK_FULL_RETRY_AFTER_SECONDS);
    }
    return response;
  }

  /** 405 naming the methods the resource has. */
  public static FullHttpResponse methodNotAllowed(HttpVersion version, String method, String allow) {
    FullHttpResponse response = error(version, HttpResponseStatus.METHOD_NOT_ALLOWED,
        "method " + method + " is not allowed here; allowed: " + allow);
    response.headers().set(HttpHeaderNames.ALLOW, allow);
    return response;
  }

  /**
   * The headers of a response: the server sets only well-formed names and values, so they are not
   * checked again as each is set.
   */
  private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);

  private static FullHttpResponse response(HttpVersion version, HttpResponseStatus status, ByteBuf body) {
    // No trailers: a response with a length has none, and an empty map per response was a
    // tenth of a PUT's allocated bytes with its headers' (docs/perf/single-node.md).
    FullHttpResponse response = new DefaultFullHttpResponse(version, status, body, HEADERS.newHeaders(), EmptyHttpHeaders.INSTANCE);
    HttpHeaders headers = response.headers();
    headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    return response;
  }
}
