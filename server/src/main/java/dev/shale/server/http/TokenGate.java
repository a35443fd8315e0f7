package dev.shale.server.http;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.auth.CertificateIdentity;
import dev.shale.cluster.auth.Grant;
import dev.shale.cluster.auth.Principal;
import dev.shale.cluster.auth.Scope;
import dev.shale.cluster.auth.TokenAuth;
import dev.shale.server.Reasons;
import dev.shale.server.scan.Scans;
import dev.shale.storage.ThrottledLog;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * The one check of every client request on a node that requires API tokens, made before it is
 * routed (docs/design.md, "API tokens"): 401 with {@code WWW-Authenticate: Bearer} without a
 * token or with one the node does not know; 403 for a request outside the token's scopes or key
 * prefixes. GET of an entity and scans need {@code read}, PUT and DELETE {@code write},
 * {@code /metrics} {@code metrics}, {@code /v0/admin} {@code admin} (or, on a node with a
 * secret, the admin signature, which {@link AdminGate} checks: the CLI and the nodes' own admin
 * calls). {@code /v0/status} without a token says only whether the node is up, for health checks.
 * A scan whose range leaves the token's prefixes is refused, not clipped: a client that asked
 * for a range learns it cannot have it, rather than reading a silently shorter answer.
 * A request without an Authorization header is judged by the token its connection's client
 * certificate names, if any (docs/design.md, "Client certificates"); one with the header by that
 * token alone.
 *
 * <p>Every reason is one line and names the token, never its secret. Thread safe.
 */
final class TokenGate {
  private static final ThrottledLog REFUSALS = new ThrottledLog(
      System.getLogger(TokenGate.class.getName()), Level.WARNING, ThrottledLog.DEFAULT_INTERVAL_MILLIS);
  static final String CHALLENGE = "Bearer realm=\"shale\"";

  private final TokenAuth auth;
  private final @Nullable AdminGate signedAdmin; // null: the node has no secret to sign admin calls with
  private final int maxIdBytes;

  TokenGate(TokenAuth auth, @Nullable AdminGate signedAdmin, int maxIdBytes) {
    this.auth = auth;
    this.signedAdmin = signedAdmin;
    this.maxIdBytes = maxIdBytes;
  }

  /** Whether requests need tokens now (this node's option, or its cluster's agreed set). */
  boolean active() {
    return auth.required();
  }

  /** What the gate decided. */
  sealed interface Decision {
    /** Route it; {@code principal} null: an admin call signed with the node's secret. */
    record Pass(@Nullable Principal principal) implements Decision {}

    /** A status request without a token: answer only whether the node is up. */
    record HealthOnly() implements Decision {}

    record Refuse(FullHttpResponse response) implements Decision {}
  }

  /**
   * Decides {@code head}; {@code certificate}: the token the connection's client certificate
   * names, used only when the request sends no Authorization header (a bearer token wins).
   */
  Decision decide(HttpRequest head, RequestTarget target, byte[] body, @Nullable SocketAddress client,
      @Nullable CertificateIdentity certificate) {
    String path = target.path();
    boolean admin = AdminGate.isAdmin(path);
    AdminGate signed = signedAdmin;
    if (admin && signed != null && head.headers().contains(AdminSignatures.SIGNATURE_HEADER)) {
      FullHttpResponse refusal = signed.refusal(head, body, client);
      return refusal == null ? new Decision.Pass(null) : new Decision.Refuse(refusal);
    }
    TokenAuth.Resolution resolution = auth.resolve(head.headers().getAll(HttpHeaderNames.AUTHORIZATION), certificate);
    return switch (resolution) {
      case TokenAuth.Resolution.Missing ignored -> path.equals(NodeRoutes.STATUS_PATH)
          ? new Decision.HealthOnly()
          : unauthorized(head, "this node requires an API token: send 'Authorization: Bearer <token>'", false);
      case TokenAuth.Resolution.Unknown unknown -> unauthorized(head, unknown.reason(), true);
      // A certificate of no token is a credential of the connection, not a wrong token: a health
      // check that presents one still learns whether the node is up.
      case TokenAuth.Resolution.Unmapped unmapped -> path.equals(NodeRoutes.STATUS_PATH)
          ? new Decision.HealthOnly()
          : unauthorized(head, unmapped.reason() + "; send 'Authorization: Bearer <token>'", false);
      case TokenAuth.Resolution.Known known -> authorize(head, target, known.principal());
    };
  }

  private Decision authorize(HttpRequest head, RequestTarget target, Principal principal) {
    String path = target.path();
    Scope needed = scopeFor(path, head.method());
    Grant grant = principal.grant();
    if (needed != null && !grant.allows(needed)) {
      return forbidden(head, "token " + principal.name() + " lacks the " + needed.word() + " scope (it has "
          + Scope.words(grant.scopes()) + ")");
    }
    String outside = outsidePrefixes(path, target.query(), grant);
    if (outside != null) return forbidden(head, "token " + principal.name() + " may not " + outside + " outside its key prefixes");
    return new Decision.Pass(principal);
  }

  /** The scope a request needs; null: none (the status, or a path the router answers 400 for). */
  private static @Nullable Scope scopeFor(String path, HttpMethod method) {
    if (AdminGate.isAdmin(path)) return Scope.ADMIN;
    return switch (path) {
      case EntityHttpHandler.ENTITY_PATH -> HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method) ? Scope.READ : Scope.WRITE;
      case Scans.ENTITIES_PATH -> Scope.READ;
      case NodeRoutes.METRICS_PATH -> Scope.METRICS;
      default -> null;
    };
  }

  /**
   * What the request would do outside the grant's prefixes ("read keys", "scan a range"), or
   * null. A malformed id or range passes: the router answers it 400, and it touches no key.
   */
  private @Nullable String outsidePrefixes(String path, @Nullable String query, Grant grant) {
    if (grant.prefixes().isEmpty()) return null;
    try {
      if (path.equals(EntityHttpHandler.ENTITY_PATH)) {
        return grant.coversKey(IdDecoder.decodeId(query, maxIdBytes)) ? null : "use keys";
      }
      if (path.equals(Scans.ENTITIES_PATH)) {
        byte[] start = IdDecoder.decodeOptional(query, "start", maxIdBytes);
        if (start == null) return null;
        return grant.coversRange(start, IdDecoder.decodeOptional(query, "end", maxIdBytes)) ? null : "scan a range that goes";
      }
    } catch (InvalidRequestException e) {
      return null;
    }
    return null;
  }

  private static Decision unauthorized(HttpRequest head, String reason, boolean invalidToken) {
    FullHttpResponse response = Responses.error(head.protocolVersion(), HttpResponseStatus.UNAUTHORIZED, Reasons.oneLine(reason));
    response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, invalidToken ? CHALLENGE + ", error=\"invalid_token\"" : CHALLENGE);
    log(head, reason);
    return new Decision.Refuse(response);
  }

  private static Decision forbidden(HttpRequest head, String reason) {
    log(head, reason);
    return new Decision.Refuse(Responses.error(head.protocolVersion(), HttpResponseStatus.FORBIDDEN, Reasons.oneLine(reason)));
  }

  // The target and the reason only: the secret travels in a header, which is never logged. One
  // line per reason (it names the token) per interval: a client retrying cannot flood the log.
  private static void log(HttpRequest head, String reason) {
    REFUSALS.log(reason, () -> "refused " + head.method().name() + " " + Reasons.oneLine(head.uri()) + ": " + Reasons.oneLine(reason));
  }
}
