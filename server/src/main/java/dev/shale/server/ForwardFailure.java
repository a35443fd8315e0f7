package dev.shale.server;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Why a forwarded request got no answer from the key's owner, and what the client is told:
 * {@code 503} when the request was not delivered (the owner refused the connection, is marked
 * down, or too many requests already wait for it), so it is safe to retry; {@code 504} when it
 * was sent but no answer came in time, so a write's outcome is unknown.
 */
final class ForwardFailure extends Exception {
  private final HttpResponseStatus status;

  private ForwardFailure(HttpResponseStatus status, String reason) {
    super(reason, null, false, false); // an expected outcome: no stack trace
    this.status = status;
  }

  static ForwardFailure unavailable(String reason) {
    return new ForwardFailure(HttpResponseStatus.SERVICE_UNAVAILABLE, reason);
  }

  static ForwardFailure timedOut(String reason) {
    return new ForwardFailure(HttpResponseStatus.GATEWAY_TIMEOUT, reason);
  }

  HttpResponseStatus status() {
    return status;
  }
}
