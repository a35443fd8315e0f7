package dev.shale.server.http;

import dev.shale.cluster.AdminSignatures;
import dev.shale.server.Reasons;
import dev.shale.storage.ThrottledLog;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * The one check of admin requests ({@code /v0/admin} and everything under it), made before they
 * are routed, so that every admin call, today's and those added later, is covered: on a node
 * with a cluster secret a request must be signed with it (docs/format.md, "Admin request
 * signatures"), else it gets 403 with the reason and nothing else happens. A node without a
 * secret lets every admin request through, as before.
 *
 * <p>Thread safe: the node's {@link AdminSignatures} is.
 */
final class AdminGate {
  static final String ADMIN_PATH = "/v0/admin";

  private static final ThrottledLog REFUSALS = new ThrottledLog(
      System.getLogger(AdminGate.class.getName()), Level.WARNING, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private final @Nullable AdminSignatures signatures; // null: a node without a secret

  AdminGate(@Nullable AdminSignatures signatures) {
    this.signatures = signatures;
  }

  /** Whether {@code path} is an admin call's. */
  static boolean isAdmin(String path) {
    return path.equals(ADMIN_PATH) || path.startsWith(ADMIN_PATH + "/");
  }

  /** The 403 that refuses the admin request {@code head} with {@code body}, or null if it may go on. */
  @Nullable FullHttpResponse refusal(HttpRequest head, byte[] body) {
    AdminSignatures checker = signatures;
    if (checker == null) return null;
    // The request-target exactly as sent: what the signature covers.
    String reason = checker.refusal(head.method().name(), head.uri(), body, head.headers()::getAll);
    if (reason == null) return null;
    String line = Reasons.oneLine(reason);
    REFUSALS.log("refused an admin request " + head.method().name() + " " + Reasons.oneLine(head.uri()) + ": " + line);
    return Responses.error(head.protocolVersion(), HttpResponseStatus.FORBIDDEN, line);
  }
}
