package dev.shale.server.http;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.jspecify.annotations.Nullable;

/**
 * What {@link RequestAggregator} hands to {@link EntityHttpHandler}, in the connection's request
 * order: a whole request, a refusal to answer in that request's place, or a request for the
 * interim {@code 100 Continue}.
 */
sealed interface InboundRequest {

  /**
   * A whole request.
   *
   * @param head the request line and headers
   * @param body the body's bytes, never null (empty without a body); handed to the engine as is
   * @param reservedBytes what the body holds of the {@link BodyBudget}; the receiver releases it
   *     once the body is no longer needed
   * @param headNanos when the head was decoded ({@link System#nanoTime}): the start of the
   *     request's time in the metrics
   */
  record Received(HttpRequest head, byte[] body, long reservedBytes, long headNanos) implements InboundRequest {}

  /**
   * A request answered without reaching the service: too large, over the body budget, or not
   * HTTP. Its body, if any, is dropped unread.
   *
   * @param version the request's HTTP version, which the answer uses
   * @param keepAlive whether the connection stays usable after the answer
   * @param method the refused request's method, if its head was decoded (for the metrics)
   * @param target its request-target, if its head was decoded (for the metrics' route)
   * @param headNanos when that head was decoded ({@link System#nanoTime}), or 0 if none was
   */
  record Refused(
      HttpVersion version, HttpResponseStatus status, String reason, boolean keepAlive, @Nullable HttpMethod method,
      @Nullable String target, long headNanos)
      implements InboundRequest {}

  /** The client waits for {@code 100 Continue} before it sends the body of the current request. */
  enum ContinueExpected implements InboundRequest {
    INSTANCE
  }
}
