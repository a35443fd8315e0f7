package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.server.Reasons;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * A client's calls of one node's entity API (README, "API"), as curl would make them: GET, PUT
 * and DELETE of {@code /v0/entity}, and the target of a scan of {@code /v0/entities} (which
 * {@link ScanReader} reads). Keys go percent-encoded as form fields, as the node decodes them.
 * A call that gets no answer throws {@link AdminCallException} with one line saying why.
 *
 * <p>Thread safe.
 */
final class EntityCalls {
  /** A node's answer: its status and its body. */
  record Answer(int status, byte[] body) {
    /** The body as the one line of reason a 4xx or 5xx carries. */
    String reason() {
      return Reasons.oneLine(new String(body, StandardCharsets.UTF_8).strip());
    }
  }

  private final NodeAddress node;
  private final @Nullable SSLContext tls; // null: plain http
  private final String consistency; // "&ack=..&from=..", or empty
  private final Duration timeout;
  private final @Nullable String token; // the API token sent with each call; null: none
  private final HttpClient http;

  /**
   * Calls of {@code node}, each with the query {@code consistency}, bounded by {@code timeout},
   * over TLS with {@code tls} (null: plain http), and with the API token {@code token} (null: none).
   */
  EntityCalls(NodeAddress node, @Nullable SSLContext tls, String consistency, Duration timeout, @Nullable String token) {
    this.node = node;
    this.tls = tls;
    this.consistency = consistency;
    this.timeout = timeout;
    this.token = token;
    this.http = NodeCalls.client(tls);
  }

  /** The TLS the calls use; null: plain http. */
  @Nullable SSLContext tls() {
    return tls;
  }

  /** The node's base URL: {@code http://host:port}, or {@code https://} over TLS. */
  String baseUrl() {
    return tls == null ? node.url() : "https://" + node.id();
  }

  @Nullable String token() {
    return token;
  }

  NodeAddress node() {
    return node;
  }

  Duration timeout() {
    return timeout;
  }

  Answer get(String key) {
    return call("GET", entityTarget(key, 0), HttpRequest.BodyPublishers.noBody());
  }

  /** Stores {@code value}; {@code ttlSeconds} 0: it never expires. */
  Answer put(String key, byte[] value, long ttlSeconds) {
    return call("PUT", entityTarget(key, ttlSeconds), HttpRequest.BodyPublishers.ofByteArray(value));
  }

  Answer delete(String key) {
    return call("DELETE", entityTarget(key, 0), HttpRequest.BodyPublishers.noBody());
  }

  /**
   * The request-target of a scan of {@code [start, end)} ({@code end} null: to the last key);
   * {@code cluster}: of the whole cluster, with this client's consistency.
   */
  String scanTarget(String start, @Nullable String end, boolean cluster) {
    return "/v0/entities?start=" + encode(start) + (end == null ? "" : "&end=" + encode(end))
        + (cluster ? "&scope=cluster" + consistency : consistency);
  }

  private String entityTarget(String key, long ttlSeconds) {
    return "/v0/entity?id=" + encode(key) + (ttlSeconds == 0 ? "" : "&ttl=" + ttlSeconds) + consistency;
  }

  private Answer call(String method, String target, HttpRequest.BodyPublisher body) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(baseUrl() + target)).timeout(timeout).method(method, body);
    if (token != null) builder.header(BearerToken.HEADER, BearerToken.value(token));
    HttpRequest request = builder.build();
    HttpResponse<byte[]> response = NodeCalls.send(http, request, HttpResponse.BodyHandlers.ofByteArray(), node, timeout,
        method + " " + target);
    return new Answer(response.statusCode(), response.body());
  }

  // Form encoding, as the node decodes an id ("+" a space, "%2B" a plus).
  private static String encode(String key) {
    return URLEncoder.encode(key, StandardCharsets.UTF_8);
  }
}
