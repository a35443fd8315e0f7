package dev.shale.server.http;

import dev.shale.cluster.AdminSignatures;
import dev.shale.server.Reasons;
import dev.shale.storage.ThrottledLog;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * The one check of admin requests ({@code /v0/admin} and everything under it), made before they
 * are routed, so that every admin call, today's and those added later, is covered: on a node
 * with a cluster secret a request must be signed with it (docs/format.md, "Admin request
 * signatures"), else it gets 403 with the reason and nothing else happens; so must it on a
 * single node started with {@code --admin-secret-file}. A single node without a secret serves
 * admin requests to loopback clients only (anyone who can run a process on its machine), and
 * refuses everyone else with 403. A cluster without a secret ({@code --trusted-network}) lets
 * every admin request through: its operator declared that no untrusted client reaches it.
 *
 * <p>Thread safe: the node's {@link AdminSignatures} is.
 */
final class AdminGate {
  static final String ADMIN_PATH = "/v0/admin";

  private static final ThrottledLog REFUSALS = new ThrottledLog(
      System.getLogger(AdminGate.class.getName()), Level.WARNING, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private final @Nullable AdminSignatures signatures; // null: a node without a secret
  private final boolean loopbackOnly; // without a secret: only loopback clients

  private AdminGate(@Nullable AdminSignatures signatures, boolean loopbackOnly) {
    this.signatures = signatures;
    this.loopbackOnly = loopbackOnly;
  }

  /** Signed calls only, from anywhere. */
  static AdminGate signed(AdminSignatures signatures) {
    return new AdminGate(signatures, false);
  }

  /** Unsigned calls, from loopback clients only: a single node without a secret. */
  static AdminGate loopbackOnly() {
    return new AdminGate(null, true);
  }

  /** Unsigned calls from anyone: a cluster on a trusted network. */
  static AdminGate open() {
    return new AdminGate(null, false);
  }

  /** Whether {@code path} is an admin call's. */
  static boolean isAdmin(String path) {
    return path.equals(ADMIN_PATH) || path.startsWith(ADMIN_PATH + "/");
  }

  /**
   * The 403 that refuses the admin request {@code head} with {@code body} from {@code client},
   * or null if it may go on.
   */
  @Nullable FullHttpResponse refusal(HttpRequest head, byte[] body, @Nullable SocketAddress client) {
    String reason = reason(head, body, client);
    if (reason == null) return null;
    String line = Reasons.oneLine(reason);
    REFUSALS.log("refused an admin request " + head.method().name() + " " + Reasons.oneLine(head.uri()) + ": " + line);
    return Responses.error(head.protocolVersion(), HttpResponseStatus.FORBIDDEN, line);
  }

  private @Nullable String reason(HttpRequest head, byte[] body, @Nullable SocketAddress client) {
    AdminSignatures checker = signatures;
    if (checker != null) {
      // The request-target exactly as sent: what the signature covers.
      return checker.refusal(head.method().name(), head.uri(), body, head.headers()::getAll);
    }
    if (!loopbackOnly || isLoopback(client)) return null;
    return "admin calls to a node without a secret are served to loopback clients only, not to "
        + describe(client) + "; start the node with --admin-secret-file to sign calls from elsewhere";
  }

  static boolean isLoopback(@Nullable SocketAddress client) {
    return client instanceof InetSocketAddress address && address.getAddress() != null
        && address.getAddress().isLoopbackAddress();
  }

  private static String describe(@Nullable SocketAddress client) {
    if (client instanceof InetSocketAddress address && address.getAddress() != null) {
      return address.getAddress().getHostAddress();
    }
    return String.valueOf(client);
  }
}
