package dev.shale.server.http;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

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
   */
  record Received(HttpRequest head, byte[] body, long reservedBytes) implements InboundRequest {}

  /**
   * A request answered without reaching the service: too large, over the body budget, or not
   * HTTP. Its body, if any, is dropped unread.
   *
   * @param version the request's HTTP version, which the answer uses
   * @param keepAlive whether the connection stays usable after the answer
   */
  record Refused(HttpVersion version, HttpResponseStatus status, String reason, boolean keepAlive)
      implements InboundRequest {}

  /** The client waits for {@code 100 Continue} before it sends the body of the current request. */
  enum ContinueExpected implements InboundRequest {
    INSTANCE
  }
}
