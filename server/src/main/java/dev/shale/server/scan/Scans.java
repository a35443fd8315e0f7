package dev.shale.server.scan;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.Consistency;
import dev.shale.server.EngineBatches;
import dev.shale.server.EntityService;
import dev.shale.server.ScanViews;
import dev.shale.server.Reasons;
import dev.shale.server.http.IdDecoder;
import dev.shale.server.http.InvalidRequestException;
import dev.shale.server.http.QueryParams;
import dev.shale.server.http.RequestTarget;
import dev.shale.server.http.Responses;
import dev.shale.server.http.StreamingAnswer;
import dev.shale.server.peer.PeerDialer;
import dev.shale.storage.Keys;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.jspecify.annotations.Nullable;

/**
 * Routes range scans: {@code GET /v0/entities?start=<id>[&end=<id>][&scope=cluster[&ack=A][&from=F]]}.
 * Checks the request on the event loop (a bad one never reaches the engine) and returns the
 * answer that will stream it: a node's own entries ({@link EngineScanAnswer}), or the cluster's
 * merged ({@link ClusterScanAnswer}), whose peers' parts come by SCAN over peer connections
 * ({@link PeerScanServer} serves them).
 *
 * <p>Thread safe: immutable, over thread-safe parts.
 */
public final class Scans {
  public static final String ENTITIES_PATH = "/v0/entities";
  static final String METHODS = "GET";

  /** What a scan request comes to: a refusal now, or a streamed answer in its turn. */
  public sealed interface Route {}

  public record Refused(FullHttpResponse response) implements Route {}

  public record Streamed(StreamingAnswer answer) implements Route {}

  private final EntityService service;
  private final ScanThreads threads;
  private final @Nullable Cluster cluster; // null for a node started without --cluster
  private final @Nullable PeerDialer dialer; // null unless the cluster has other nodes

  /** {@code dialer}: opens the peer connections of cluster scans; null unless the cluster has other nodes. */
  public Scans(EntityService service, ScanThreads threads, @Nullable Cluster cluster, @Nullable PeerDialer dialer) {
    if (cluster != null && cluster.takesPeers() && dialer == null) {
      throw new IllegalArgumentException("a cluster with peers needs a dialer for its scans");
    }
    this.service = service;
    this.threads = threads;
    this.cluster = cluster;
    this.dialer = dialer;
  }

  /** The scans holding an engine iterator now. */
  public ScanViews views() {
    return threads.views();
  }

  /** The route of a request for {@link #ENTITIES_PATH}. */
  public Route route(HttpRequest head, RequestTarget target) {
    HttpVersion version = head.protocolVersion();
    if (!HttpMethod.GET.equals(head.method())) {
      return new Refused(Responses.methodNotAllowed(version, head.method().name(), METHODS));
    }
    if (!HttpVersion.HTTP_1_1.equals(version)) {
      // HTTP/1.0 has no chunked coding: a cut scan could not be told from a complete one.
      return refused(version, HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "scans stream chunked answers: use HTTP/1.1");
    }
    try {
      ScanQuery query = ScanQuery.parse(target.query());
      if (!query.cluster()) return new Streamed(local(query, version));
      return new Streamed(cluster(query, version));
    } catch (InvalidRequestException e) {
      return refused(version, HttpResponseStatus.BAD_REQUEST, Reasons.oneLine(e.getMessage()));
    }
  }

  private StreamingAnswer local(ScanQuery query, HttpVersion version) {
    return new EngineScanAnswer(
        new EngineScan(after -> service.scan(resumeAt(query, after), query.end(), false), threads, query.start(), query.end()), version);
  }

  private StreamingAnswer cluster(ScanQuery query, HttpVersion version) throws InvalidRequestException {
    Cluster member = cluster;
    int nodes = member == null ? 1 : member.readableNodes();
    Consistency consistency;
    try {
      consistency = member == null ? Consistency.parse(query.ack(), query.from(), 1, 1) : member.consistency(query.ack(), query.from());
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(Reasons.oneLine(e.getMessage()));
    }
    // A node alone is the whole cluster: its own entries are the answer.
    PeerDialer peers = dialer;
    if (member == null || nodes == 1 || peers == null) return local(query, version);
    return new ClusterScanAnswer(member, peers, consistency, query, version, threads,
        after -> service.scan(resumeAt(query, after), query.end(), true));
  }

  // Where a scan (re)opens its iterator: the range's start, or just after the last key it handed over.
  private static byte[] resumeAt(ScanQuery query, byte @Nullable [] after) {
    return after == null ? query.start() : EngineBatches.keyAfter(after);
  }

  private static Refused refused(HttpVersion version, HttpResponseStatus status, String reason) {
    return new Refused(Responses.error(version, status, reason));
  }

  /**
   * A scan's parameters: {@code start} (required) and {@code end} decoded like an entity's id;
   * {@code scope} {@code local} (the default) or {@code cluster}; {@code ack} and {@code from}
   * as received, for {@link Consistency#parse}.
   */
  record ScanQuery(
      byte[] start, byte @Nullable [] end, boolean cluster, @Nullable String ack, @Nullable String from) {
    static ScanQuery parse(@Nullable String rawQuery) throws InvalidRequestException {
      byte[] start = IdDecoder.decodeOptional(rawQuery, "start", EntityService.MAX_ID_BYTES);
      if (start == null) throw new InvalidRequestException("missing start parameter: use ?start=<id>[&end=<id>]");
      byte[] end = IdDecoder.decodeOptional(rawQuery, "end", EntityService.MAX_ID_BYTES);
      String scope = QueryParams.value(rawQuery, "scope");
      if (scope != null && !scope.equals("local") && !scope.equals("cluster")) {
        throw new InvalidRequestException("scope must be 'local' or 'cluster', not '" + scope + "'");
      }
      boolean cluster = "cluster".equals(scope);
      String ack = QueryParams.value(rawQuery, "ack");
      String from = QueryParams.value(rawQuery, "from");
      if (!cluster && (ack != null || from != null)) {
        throw new InvalidRequestException("ack and from apply to scope=cluster only");
      }
      return new ScanQuery(start, end, cluster, ack, from);
    }

    /** Whether {@code key} is in {@code [start, end)}. */
    boolean contains(byte[] key) {
      return Keys.compare(key, start) >= 0 && (end == null || Keys.compare(key, end) < 0);
    }
  }
}
