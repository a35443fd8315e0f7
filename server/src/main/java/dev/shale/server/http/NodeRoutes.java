package dev.shale.server.http;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.ClockOffsets;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.auth.TokenAuth;
import dev.shale.cluster.coordination.ReplicationStats;
import dev.shale.cluster.handoff.RangeProgress;
import dev.shale.cluster.repair.RepairReport;
import dev.shale.server.EntityService;
import dev.shale.server.MemoryUse;
import dev.shale.server.NodeAdmin;
import dev.shale.server.RepairBody;
import dev.shale.server.ServerOptions;
import dev.shale.server.StatusBody;
import dev.shale.server.metrics.NodeMetrics;
import dev.shale.server.repair.RepairRunner;
import dev.shale.server.scan.Scans;
import dev.shale.server.tls.NodeTls;
import dev.shale.storage.EngineStats;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A node's routes other than its data's ({@code /v0/entity} and {@code /v0/entities} are the
 * connection handler's), and the gates every request passes first: {@code /v0/status},
 * {@code /metrics} (the Prometheus text format), {@code /v0/admin/compact} and
 * {@code /v0/admin/repair}, the cluster map's routes ({@link TopologyRoutes}), snapshots
 * ({@link SnapshotRoutes}) and API tokens ({@link TokenRoutes}). With tokens on, {@link TokenGate}
 * decides every request; otherwise every {@code /v0/admin} request passes the {@link AdminGate}
 * (signed with the cluster secret on a node that has one).
 *
 * <p>One per node, shared by its connections: it holds no connection's state. Thread safe as
 * the parts it calls are; it is called on the event loops.
 */
public final class NodeRoutes {
  static final String STATUS_PATH = "/v0/status";
  static final String STATUS_METHODS = "GET";
  static final String METRICS_PATH = "/metrics";
  static final String METRICS_METHODS = "GET";
  static final String COMPACT_PATH = "/v0/admin/compact";
  static final String COMPACT_METHODS = "POST";
  static final String REPAIR_PATH = "/v0/admin/repair";
  static final String REPAIR_METHODS = "POST";

  private final EntityService service;
  private final ServerOptions options;
  private final AnswerBudget answerBudget;
  private final Scans scans;
  private final ReplicationStats stats;
  private final Supplier<List<RangeProgress>> handoff; // the pulls of a pending node change
  private final @Nullable Cluster cluster; // null without --cluster
  private final @Nullable ClockOffsets clock; // null unless the cluster has other nodes
  private final @Nullable RepairRunner repairs; // null without peers
  private final NodeMetrics metrics;
  private final @Nullable TopologyRoutes topology; // null without a cluster
  private final @Nullable SnapshotRoutes snapshots; // null: this node takes no snapshots
  private final AdminGate adminGate;
  private final @Nullable TokenGate tokenGate; // null: the node keeps no tokens
  private final @Nullable TokenRoutes tokenRoutes; // null: the node keeps no tokens

  public NodeRoutes(
      EntityService service, ServerOptions options, AnswerBudget answerBudget, Scans scans, ReplicationStats stats,
      Supplier<List<RangeProgress>> handoff, @Nullable Cluster cluster, @Nullable ClockOffsets clock, @Nullable RepairRunner repairs,
      NodeMetrics metrics, NodeAdmin admin, @Nullable SnapshotRoutes snapshots) {
    this.service = service;
    this.options = options;
    this.answerBudget = answerBudget;
    this.scans = scans;
    this.stats = stats;
    this.handoff = handoff;
    this.cluster = cluster;
    this.clock = clock;
    this.repairs = repairs;
    this.metrics = metrics;
    this.snapshots = snapshots;
    this.topology = cluster == null ? null : new TopologyRoutes(cluster.membership());
    this.adminGate = adminGate(cluster, admin);
    TokenAuth tokens = admin.tokens();
    AdminSignatures signatures = signatures(cluster, admin);
    this.tokenGate = tokens == null ? null
        : new TokenGate(tokens, signatures == null ? null : AdminGate.signed(signatures), EntityService.MAX_ID_BYTES);
    this.tokenRoutes = tokens == null ? null : new TokenRoutes(tokens, service::wallMillis, EntityService.MAX_ID_BYTES);
  }

  /**
   * The answer to a request its credentials do not allow (or, on a node requiring tokens, the
   * bare health a request without one may have), or null: it goes on to its route.
   */
  RouteAction.@Nullable Answer gate(InboundRequest.Received request, RequestTarget target, Channel channel) {
    HttpRequest head = request.head();
    TokenGate tokens = tokenGate;
    if (tokens != null && tokens.active()) {
      // Tokens replace the loopback rule: an admin call passes with the admin scope or a signature.
      return switch (tokens.decide(head, target, request.body(), channel.remoteAddress(), channel.attr(NodeTls.CLIENT_IDENTITY).get())) {
        case TokenGate.Decision.Refuse refuse -> new RouteAction.Answer(refuse.response());
        case TokenGate.Decision.HealthOnly ignored -> new RouteAction.Answer(health(head));
        case TokenGate.Decision.Pass ignored -> null;
      };
    }
    if (AdminGate.isAdmin(target.path())) {
      FullHttpResponse refusal = adminGate.refusal(head, request.body(), channel.remoteAddress());
      if (refusal != null) return new RouteAction.Answer(refusal);
    }
    return null;
  }

  /**
   * Why this node serves no client's entity or scan request now, or null: it was removed from the
   * cluster map, or its clock is fenced (docs/design.md, "Clock offsets").
   */
  @Nullable String clientRefusal() {
    String removal = cluster == null ? null : cluster.removal();
    if (removal != null) return removal;
    return clock == null ? null : clock.fence();
  }

  /** The action of a request to a path of this node's own (a 400 for a path there is none of). */
  RouteAction route(HttpRequest head, RequestTarget target, Channel channel) {
    return switch (target.path()) {
      case STATUS_PATH -> new RouteAction.Answer(status(head, channel));
      case METRICS_PATH -> new RouteAction.Answer(metrics(head));
      case COMPACT_PATH -> compact(head);
      case TopologyRoutes.TOPOLOGY_PATH, TopologyRoutes.JOIN_PATH, TopologyRoutes.REMOVE_PATH -> topology(head, target);
      case REPAIR_PATH -> repair(head);
      case SnapshotRoutes.SNAPSHOT_PATH, SnapshotRoutes.SNAPSHOTS_PATH -> snapshot(head, target);
      case TokenRoutes.TOKENS_PATH -> tokens(head, target);
      default -> new RouteAction.Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.BAD_REQUEST,
          "unknown path " + target.path() + "; the API is " + EntityHttpHandler.ENTITY_PATH + "?id=<id>"));
    };
  }

  private FullHttpResponse status(HttpRequest head, Channel channel) {
    if (!HttpMethod.GET.equals(head.method())) {
      return Responses.methodNotAllowed(head.protocolVersion(), head.method().name(), STATUS_METHODS);
    }
    EngineStats engine = service.stats();
    // Until its start measured the clock against the members' the node serves no client: a
    // readiness probe must not take it as up (ShaleServer.start has not returned yet).
    HttpResponseStatus code = clock == null || clock.isStarted() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE;
    String body = StatusBody.of(engine, service.health(),
        MemoryUse.now(engine, options, answerBudget, scans.views()), stats,
        cluster == null ? 1 : cluster.replicationFactor(), cluster == null ? null : cluster.membership().current(),
        cluster == null ? null : cluster.removal(), clock, repairs, handoff.get());
    // A TLS port's certificate in force (its subject and expiry, never key material).
    NodeTls tls = channel.attr(NodeTls.OF_CONNECTION).get();
    return Responses.json(head.protocolVersion(), code, tls == null ? body : StatusBody.withMember(body, "tls", tls.statusJson()));
  }

  /**
   * Every metric in the Prometheus text format, read now: on the event loop, as the status is
   * (a scrape reads counters and writes some tens of KiB, every few seconds at most).
   */
  private FullHttpResponse metrics(HttpRequest head) {
    if (!HttpMethod.GET.equals(head.method())) {
      return Responses.methodNotAllowed(head.protocolVersion(), head.method().name(), METRICS_METHODS);
    }
    if (!metrics.isOn()) {
      return Responses.error(head.protocolVersion(), HttpResponseStatus.NOT_FOUND,
          "metrics are off on this node (it was started with --metrics=false)");
    }
    return Responses.ok(head.protocolVersion(), NodeMetrics.CONTENT_TYPE, metrics.scrape());
  }

  /**
   * An operator's full compaction: a storage call like any other (it takes a pool worker until
   * done, which may be minutes), answered 200 with what it did.
   */
  private RouteAction compact(HttpRequest head) {
    if (!HttpMethod.POST.equals(head.method())) {
      return new RouteAction.Answer(Responses.methodNotAllowed(head.protocolVersion(), head.method().name(), COMPACT_METHODS));
    }
    return RouteAction.Call.operation(service::compact);
  }

  /**
   * An operator's repair of the whole cluster (docs/design.md, "Anti-entropy repair"), run by
   * the node's repair thread, answered 200 with its report once done (minutes on a large store);
   * a node without peers has nothing to repair.
   */
  private RouteAction repair(HttpRequest head) {
    HttpVersion version = head.protocolVersion();
    if (!HttpMethod.POST.equals(head.method())) {
      return new RouteAction.Answer(Responses.methodNotAllowed(version, head.method().name(), REPAIR_METHODS));
    }
    RepairRunner runner = repairs;
    if (runner == null) return new RouteAction.Answer(Responses.json(version, HttpResponseStatus.OK, RepairBody.of(RepairReport.NOTHING)));
    return new RouteAction.Pending(() -> runner.repairAll().thenApply(report -> Responses.json(version, HttpResponseStatus.OK, RepairBody.of(report))));
  }

  /** The snapshot routes: answered once the snapshot is made, listed or deleted. */
  private RouteAction snapshot(HttpRequest head, RequestTarget target) {
    SnapshotRoutes routes = snapshots;
    if (routes == null) {
      return new RouteAction.Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.NOT_FOUND, "this node takes no snapshots"));
    }
    return new RouteAction.Pending(() -> routes.answer(head, target));
  }

  /** The API token routes: answered once the change is applied here. */
  private RouteAction tokens(HttpRequest head, RequestTarget target) {
    TokenRoutes routes = tokenRoutes;
    if (routes == null) {
      return new RouteAction.Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.NOT_FOUND, "this node keeps no API tokens"));
    }
    return new RouteAction.Pending(() -> routes.answer(head, target.query()));
  }

  /** The cluster map's routes (read it, join, remove): answered once the change is agreed. */
  private RouteAction topology(HttpRequest head, RequestTarget target) {
    TopologyRoutes routes = topology;
    if (routes == null) {
      return new RouteAction.Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.NOT_FOUND, "this node is not part of a cluster"));
    }
    return new RouteAction.Pending(() -> routes.answer(head, target.path(), target.query()));
  }

  /**
   * The status without a token, on a node that requires one: only whether it is up, with the
   * code a readiness probe reads (as {@link #status}), and nothing about its data or members.
   */
  private FullHttpResponse health(HttpRequest head) {
    if (!HttpMethod.GET.equals(head.method())) {
      return Responses.methodNotAllowed(head.protocolVersion(), head.method().name(), STATUS_METHODS);
    }
    boolean up = clock == null || clock.isStarted();
    return Responses.json(head.protocolVersion(), up ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
        up ? "{\"status\": \"up\"}" : "{\"status\": \"starting\"}");
  }

  // The secret admin calls are signed with: the cluster's, or a single node's --admin-secret-file.
  private static @Nullable AdminSignatures signatures(@Nullable Cluster cluster, NodeAdmin admin) {
    return cluster != null ? cluster.auth().adminSignatures() : admin.signatures();
  }

  // A cluster node signs with the cluster's secret, or trusts its network; a single node signs
  // with its --admin-secret-file, or serves loopback clients only.
  private static AdminGate adminGate(@Nullable Cluster cluster, NodeAdmin admin) {
    if (cluster != null) {
      AdminSignatures clusterSignatures = cluster.auth().adminSignatures();
      return clusterSignatures == null ? AdminGate.open() : AdminGate.signed(clusterSignatures);
    }
    AdminSignatures own = admin.signatures();
    return own == null ? AdminGate.loopbackOnly() : AdminGate.signed(own);
  }
}
