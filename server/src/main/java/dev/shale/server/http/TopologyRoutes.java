package dev.shale.server.http;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import dev.shale.cluster.membership.Membership;
import dev.shale.cluster.membership.RaftAddress;
import dev.shale.cluster.membership.TopologyChangeRefused;
import dev.shale.server.Reasons;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * The operator's calls on the cluster map (README, "Cluster"), answered once the members agreed:
 * <pre>
 *   GET  /v0/admin/topology                              the map, in its stored text form (docs/format.md)
 *   POST /v0/admin/topology/join?url=U&amp;raft=H:P      U joins (its Raft server on H:P)
 *   POST /v0/admin/topology/remove?url=U[&amp;dead=true] U leaves (dead: down, its copies rebuilt from the others)
 * </pre>
 * A change answers 200 with the map it made; 409 when the map refuses it (another change under
 * way, an unknown member: the reason says), 503 when the members could not agree (retry), 400
 * for a malformed request. Under {@code /v0/admin/}, so they need the admin signature once the
 * node has a cluster secret.
 */
final class TopologyRoutes {
  static final String TOPOLOGY_PATH = "/v0/admin/topology";
  static final String JOIN_PATH = "/v0/admin/topology/join";
  static final String REMOVE_PATH = "/v0/admin/topology/remove";

  private final Membership membership;

  TopologyRoutes(Membership membership) {
    this.membership = membership;
  }

  /** The answer to a request for one of the paths above; completes on a thread of Raft's or the membership's. */
  CompletableFuture<FullHttpResponse> answer(HttpRequest head, String path, @Nullable String query) {
    HttpVersion version = head.protocolVersion();
    boolean get = HttpMethod.GET.equals(head.method());
    boolean post = HttpMethod.POST.equals(head.method());
    try {
      return switch (path) {
        case TOPOLOGY_PATH -> get ? CompletableFuture.completedFuture(map(version, membership.current()))
            : CompletableFuture.completedFuture(Responses.methodNotAllowed(version, head.method().name(), "GET"));
        case JOIN_PATH -> post ? changed(version, membership.join(address(query), raftAddress(query)))
            : CompletableFuture.completedFuture(Responses.methodNotAllowed(version, head.method().name(), "POST"));
        case REMOVE_PATH -> post ? changed(version, membership.remove(address(query), dead(query)))
            : CompletableFuture.completedFuture(Responses.methodNotAllowed(version, head.method().name(), "POST"));
        default -> throw new IllegalStateException("not a topology path: " + path);
      };
    } catch (InvalidRequestException | IllegalArgumentException e) {
      return CompletableFuture.completedFuture(Responses.error(version, HttpResponseStatus.BAD_REQUEST, Reasons.oneLine(e.getMessage())));
    }
  }

  static boolean isTopologyPath(String path) {
    return path.equals(TOPOLOGY_PATH) || path.equals(JOIN_PATH) || path.equals(REMOVE_PATH);
  }

  private static CompletableFuture<FullHttpResponse> changed(HttpVersion version, CompletableFuture<ClusterMap> change) {
    return change.handle((map, failure) -> {
      if (failure == null) return map(version, map);
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
      HttpResponseStatus status = cause instanceof TopologyChangeRefused ? HttpResponseStatus.CONFLICT : HttpResponseStatus.SERVICE_UNAVAILABLE;
      return Responses.error(version, status, Reasons.oneLine(String.valueOf(cause.getMessage())));
    });
  }

  private static FullHttpResponse map(HttpVersion version, ClusterMap map) {
    return Responses.lines(version, HttpResponseStatus.OK, new String(ClusterMapCodec.encode(map), StandardCharsets.UTF_8));
  }

  private static NodeAddress address(@Nullable String query) throws InvalidRequestException {
    return NodeAddress.parse(required(query, "url"));
  }

  private static String raftAddress(@Nullable String query) throws InvalidRequestException {
    return RaftAddress.check(required(query, "raft"));
  }

  private static boolean dead(@Nullable String query) throws InvalidRequestException {
    String dead = QueryParams.value(query, "dead");
    if (dead == null || dead.equals("false")) return false;
    if (dead.equals("true")) return true;
    throw new InvalidRequestException("dead must be true or false: " + dead);
  }

  private static String required(@Nullable String query, String name) throws InvalidRequestException {
    String value = QueryParams.value(query, name);
    if (value == null || value.isEmpty()) throw new InvalidRequestException("missing query parameter " + name);
    return value;
  }
}
