package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.server.Reasons;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.jspecify.annotations.Nullable;

/**
 * Sends one HTTP request to a node for a command (the admin calls of {@link AdminClient}, the
 * client's of {@link EntityCalls}), and turns every way it can fail to be answered into an
 * {@link AdminCallException} with one line saying why: not reachable, no answer in time, cut.
 */
final class NodeCalls {
  /** Connecting to a node on a reachable network takes milliseconds; past this it is not there. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private NodeCalls() {}

  /** An HTTP/1.1 client that gives up connecting after {@link #CONNECT_TIMEOUT}. */
  static HttpClient client() {
    return client(null);
  }

  /** As above, over TLS with {@code tls} for https:// URLs (null: the JDK's default TLS). */
  static HttpClient client(@Nullable SSLContext tls) {
    HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT);
    if (tls != null) builder.sslContext(tls);
    return builder.build();
  }

  /**
   * {@code request} to {@code node}, answered (any status); {@code what} names the call in the
   * messages (e.g. {@code GET /v0/status}), {@code timeout} is the request's own.
   */
  static <T> HttpResponse<T> send(
      HttpClient http, HttpRequest request, HttpResponse.BodyHandler<T> body, NodeAddress node, Duration timeout, String what) {
    try {
      return http.send(request, body);
    } catch (HttpConnectTimeoutException e) {
      throw new AdminCallException("cannot connect to " + node + ": no answer within " + CONNECT_TIMEOUT.toSeconds() + " s", e);
    } catch (ConnectException e) {
      throw new AdminCallException("cannot connect to " + node + ": connection refused (is a node running there?)", e);
    } catch (SSLHandshakeException e) {
      throw new AdminCallException(ClientTls.handshakeFailure(node, e), e);
    } catch (HttpTimeoutException e) {
      throw new AdminCallException(node + " did not answer " + what + " within " + timeout.toMillis() + " ms", e);
    } catch (IOException e) {
      throw new AdminCallException(what + " to " + node + " failed: " + Reasons.oneLine(String.valueOf(e.getMessage())), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminCallException(what + " to " + node + " was interrupted", e);
    }
  }
}
