package dev.shale.app;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.NodeAddress;
import dev.shale.server.Reasons;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Sends admin calls ({@code /v0/admin/*}) to one node, signed with the cluster secret when it
 * has one (docs/format.md, "Admin request signatures"): what the {@code shale nodes} commands
 * use. A call answers the node's 2xx body, or throws {@link AdminCallException} with one line
 * saying why not (refused and why, not reachable, no answer in time).
 *
 * <p>Thread safe.
 */
final class AdminClient {
  private final NodeAddress node;
  private final String baseUrl; // http://host:port, or https:// over TLS
  private final @Nullable AdminSignatures signatures; // null: unsigned, for a node without a secret
  private final Duration timeout;
  private final @Nullable String token; // null: no Authorization header
  private final HttpClient http;

  /**
   * A client of {@code node}; {@code signatures} null sends unsigned calls (a node without a
   * cluster secret takes them); {@code timeout} bounds each call, from connecting to its answer.
   */
  AdminClient(NodeAddress node, @Nullable AdminSignatures signatures, Duration timeout) {
    this(node, null, signatures, timeout, null);
  }

  /**
   * As above, over TLS with {@code tls} (null: plain http), also sending the API token
   * {@code token} (null: none).
   */
  AdminClient(NodeAddress node, @Nullable SSLContext tls, @Nullable AdminSignatures signatures, Duration timeout,
      @Nullable String token) {
    this.node = node;
    this.baseUrl = tls == null ? node.url() : "https://" + node.id();
    this.signatures = signatures;
    this.timeout = timeout;
    this.token = token;
    this.http = NodeCalls.client(tls);
  }

  /** {@code POST target} with no body; {@code target} is the path and query, e.g. {@code /v0/admin/compact}. */
  String post(String target) {
    return call("POST", target, new byte[0]);
  }

  /** {@code GET target}. */
  String get(String target) {
    return call("GET", target, new byte[0]);
  }

  /** Sends {@code method target} with {@code body}, signed; answers the body of a 2xx answer. */
  String call(String method, String target, byte[] body) {
    if (!target.startsWith("/")) throw new IllegalArgumentException("a target is a path: " + target);
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + target))
        .timeout(timeout)
        .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    if (token != null) request.header(BearerToken.HEADER, BearerToken.value(token));
    AdminSignatures signer = signatures;
    if (signer != null) {
      AdminSignatures.Signed signed = signer.sign(method, target, body);
      request.header(AdminSignatures.TIME_HEADER, signed.time())
          .header(AdminSignatures.NONCE_HEADER, signed.nonce())
          .header(AdminSignatures.SIGNATURE_HEADER, signed.signature());
    }
    HttpResponse<String> response = NodeCalls.send(http, request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8),
        node, timeout, method + " " + target);
    String answer = response.body().strip();
    int status = response.statusCode();
    if (status / 100 == 2) return answer;
    String reason = Reasons.oneLine(answer);
    if (status == 403) {
      throw new AdminCallException(node + " refused " + method + " " + target + " (403): " + reason
          + (signer == null && token == null ? "; give the cluster secret with --cluster-secret-file" : ""));
    }
    if (status == 401) {
      throw new AdminCallException(node + " refused " + method + " " + target + " (401): " + reason
          + (token == null ? "; give an admin token with --token-file or SHALE_TOKEN" : ""));
    }
    throw new AdminCallException(node + " answered " + method + " " + target + " with " + status + ": " + reason);
  }
}
