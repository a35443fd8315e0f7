package dev.shale.server.http;

import dev.shale.server.Reasons;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the server refuses in a request's head that Netty's decoder lets through (RFC 9112 and
 * RFC 9110). Netty has already chosen the body's framing when the head gets here: from a
 * {@code Transfer-Encoding} whose list merely contains {@code chunked}, or else from
 * {@code Content-Length}, or else no body. A framing the server does not accept as the only
 * reading of the bytes must close the connection after the answer ({@link Refusal#close}):
 * whatever follows may be a body that another reader (a proxy) took for a request, or the
 * reverse. This is the defence against request smuggling.
 *
 * <p>It refuses, in this order:
 * <ul>
 *   <li>{@code Transfer-Encoding} together with {@code Content-Length}: 400, close (RFC 9112 6.3).
 *   <li>{@code Transfer-Encoding} whose final coding is not exactly {@code chunked} (after
 *       joining every such header), or that names {@code chunked} twice: 400, close (6.3, 7).
 *   <li>Another coding before {@code chunked} ({@code gzip, chunked}): the server knows no coding
 *       but chunked, so 501 (6.1), close.
 *   <li>A PUT with neither header: its body could only run to the end of the connection, which a
 *       request may not do (6.3), so 411, close.
 *   <li>Two {@code Host} headers, or none in HTTP/1.1: 400 (3.2); the framing is sound, so the
 *       body is dropped and the connection kept.
 *   <li>An {@code Expect} other than {@code 100-continue}: 417 (RFC 9110 10.1.1), connection kept.
 * </ul>
 * Netty itself refuses two {@code Content-Length} headers (even equal ones, or a list) and
 * {@code Transfer-Encoding} in HTTP/1.0; those come as decoder failures (400, close).
 */
final class RequestHeadCheck {
  /** Why a request is refused; {@code close}: its framing is not trusted, the connection ends. */
  record Refusal(HttpResponseStatus status, String reason, boolean close) {}

  private RequestHeadCheck() {}

  /** Why {@code head} is refused, or null when it is not. */
  static @Nullable Refusal refusal(HttpRequest head) {
    HttpHeaders headers = head.headers();
    boolean hasLength = headers.contains(HttpHeaderNames.CONTENT_LENGTH);
    List<String> encodings = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
    if (!encodings.isEmpty()) {
      if (hasLength) return close(HttpResponseStatus.BAD_REQUEST, "a request must not have both Content-Length and Transfer-Encoding");
      Refusal coding = codingRefusal(encodings);
      if (coding != null) return coding;
    } else if (!hasLength && HttpMethod.PUT.equals(head.method())) {
      return close(HttpResponseStatus.LENGTH_REQUIRED, "a PUT needs a Content-Length (or Transfer-Encoding: chunked)");
    }
    List<String> hosts = headers.getAll(HttpHeaderNames.HOST);
    if (hosts.size() > 1) return keep(HttpResponseStatus.BAD_REQUEST, "a request must have one Host header, not " + hosts.size());
    if (hosts.isEmpty() && HttpVersion.HTTP_1_1.equals(head.protocolVersion())) {
      return keep(HttpResponseStatus.BAD_REQUEST, "an HTTP/1.1 request needs a Host header");
    }
    for (String expectation : headers.getAll(HttpHeaderNames.EXPECT)) {
      if (!HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expectation.trim())) {
        return keep(HttpResponseStatus.EXPECTATION_FAILED,
            "unsupported expectation '" + Reasons.oneLine(expectation) + "'; only 100-continue is supported");
      }
    }
    return null;
  }

  private static @Nullable Refusal codingRefusal(List<String> headerValues) {
    List<String> codings = new ArrayList<>();
    for (String value : headerValues) {
      for (String coding : value.split(",", -1)) {
        if (!coding.isBlank()) codings.add(coding.strip());
      }
    }
    String last = codings.isEmpty() ? "" : codings.getLast();
    if (!isChunked(last)) {
      return close(HttpResponseStatus.BAD_REQUEST,
          "Transfer-Encoding must end with chunked, not '" + Reasons.oneLine(last) + "'");
    }
    List<String> before = codings.subList(0, codings.size() - 1);
    if (before.stream().anyMatch(RequestHeadCheck::isChunked)) {
      return close(HttpResponseStatus.BAD_REQUEST, "Transfer-Encoding names chunked twice");
    }
    if (before.isEmpty()) return null;
    return close(HttpResponseStatus.NOT_IMPLEMENTED,
        "transfer coding '" + Reasons.oneLine(before.getFirst()) + "' is not supported; only chunked is");
  }

  private static boolean isChunked(String coding) {
    return HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(coding);
  }

  private static Refusal close(HttpResponseStatus status, String reason) {
    return new Refusal(status, reason, true);
  }

  private static Refusal keep(HttpResponseStatus status, String reason) {
    return new Refusal(status, reason, false);
  }
}
