package dev.shale.server;

import dev.shale.cluster.ClockOffsets;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.coordination.Coordinator;
import dev.shale.cluster.coordination.ReplicationStats;
import dev.shale.cluster.handoff.RangeProgress;
import dev.shale.server.http.AnswerBudget;
import dev.shale.server.http.BodyBudget;
import dev.shale.server.http.EntityHttpHandler;
import dev.shale.server.http.SnapshotRoutes;
import dev.shale.server.repair.RepairRunner;
import dev.shale.server.http.LingeringClose;
import dev.shale.server.http.NodeRoutes;
import dev.shale.server.http.LoopWriteGroup;
import dev.shale.server.http.RecentValueSizes;
import dev.shale.server.http.RequestAggregator;
import dev.shale.server.http.RequestTimeoutHandler;
import dev.shale.server.http.StrictServerCodec;
import dev.shale.server.metrics.NodeMetrics;
import dev.shale.server.scan.Scans;
import dev.shale.storage.Engine;
import dev.shale.storage.Env;
import dev.shale.server.peer.PeerEndpoint;
import dev.shale.server.peer.PortSniffer;
import dev.shale.server.tls.ClientCertificateRefusal;
import dev.shale.server.tls.NodeTls;
import dev.shale.server.tls.TlsSniffer;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.EventExecutor;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Assembles each connection's pipeline, and with it every limit a connection is held to. On a
 * TLS port ({@code --tls-cert}) first {@link TlsSniffer}: a TLS handshake gets an SslHandler of
 * the certificate in force and the rest sees the decrypted bytes; plaintext is refused (but for a
 * peer preface, which goes on to the peer handshake to be refused there, by name). Then
 * only {@link PortSniffer}: a first byte 0x89 and the preface make a peer connection (frame
 * codec, handshake, then {@link dev.shale.server.peer.PeerRequestHandler}; docs/format.md,
 * "Internode protocol"; with TLS between nodes the handshake also requires a node certificate of
 * the cluster CA naming the sender); anything else is HTTP (refused with 403 when the port asks
 * for client certificates without requiring them and the client has none of its client CA:
 * {@link ClientCertificateRefusal}), whose handlers are then:
 *
 * <pre>
 *   linger           LingeringClose: after a refusal that closes, the answer goes out before the close
 *   idle             IdleStateHandler: nothing moved for idleTimeoutMillis -> close (if nothing is owed)
 *   request-timeout  RequestTimeoutHandler: one request took over requestTimeoutMillis to arrive -> 408, close
 *   http             StrictServerCodec: a strict request line (400, 505), request line <= 8 KiB (414),
 *                    headers <= 8 KiB (431), strict chunked bodies (400): chunk lines and trailers <= 8 KiB
 *   flow             FlowControlHandler: holds decoded requests while the handler does not read
 *   aggregator       RequestAggregator: framing, Host and Expect (RequestHeadCheck: 400, 411, 417, 501),
 *                    body <= maxValueSizeBytes (413), within the body budget (503)
 *   entity           EntityHttpHandler: routes, runs storage calls or coordinates, streams scans,
 *                    answers in order, at most maxPipelinedRequests unanswered per connection,
 *                    answer bytes within the connection's share of the AnswerBudget
 * </pre>
 */
final class ServerInitializer extends ChannelInitializer<SocketChannel> {
  /**
   * Longest request line: room for a 1024-byte id fully percent-encoded (3 KiB) and then some.
   * Longer lines get 414.
   */
  static final int MAX_REQUEST_LINE_BYTES = 8192;
  /** Longest header section; longer gets 431. */
  static final int MAX_HEADER_BYTES = 8192;
  /** Body bytes per decoded chunk: larger chunks mean fewer hand-offs for large values. */
  static final int MAX_CHUNK_BYTES = 64 * 1024;

  private final ServerOptions options;
  private final EntityService service;
  private final @Nullable StoragePool pool; // null: storage calls run inline on the event loops (--workers 0)
  private final BodyBudget budget;
  private final AnswerBudget answerBudget;
  // One per server, like the budgets: what every connection's coordinated reads reserve follows it.
  private final RecentValueSizes valueSizes;
  private final ChannelGroup connections;
  private final BooleanSupplier draining;
  private final @Nullable Cluster cluster; // null without --cluster
  private final @Nullable Coordinator coordinator; // null without peers
  private final Scans scans;
  private final NodeRoutes nodeRoutes; // one per node: the gates, and the routes but the data's
  private final @Nullable PeerEndpoint peers; // null: this node takes no peer connections
  // One per event loop: the client writes each loop receives in one turn go to the engine together.
  private final Map<EventExecutor, LoopWriteGroup> writeGroups = new ConcurrentHashMap<>();
  private final NodeMetrics metrics;
  private final @Nullable NodeTls tls; // null: the port speaks plaintext
  private final Env env;

  ServerInitializer(
      Env env, ServerOptions options, EntityService service, @Nullable StoragePool pool, BodyBudget budget,
      AnswerBudget answerBudget, ChannelGroup connections, BooleanSupplier draining, @Nullable Cluster cluster, @Nullable Coordinator coordinator,
      @Nullable ClockOffsets clock, ReplicationStats stats, Supplier<List<RangeProgress>> handoff, Scans scans, @Nullable PeerEndpoint peers,
      @Nullable RepairRunner repairs, NodeMetrics metrics, NodeAdmin admin, @Nullable SnapshotRoutes snapshots, @Nullable NodeTls tls) {
    this.env = env;
    this.tls = tls;
    this.metrics = metrics;
    this.scans = scans;
    this.peers = peers;
    this.cluster = cluster;
    this.coordinator = coordinator;
    this.options = options;
    this.service = service;
    this.pool = pool;
    this.budget = budget;
    this.answerBudget = answerBudget;
    this.valueSizes = new RecentValueSizes(Engine.LEND_MIN_VALUE_BYTES, options.maxValueSizeBytes(), env::nanoTime);
    this.connections = connections;
    this.nodeRoutes = new NodeRoutes(service, options, answerBudget, scans, stats, handoff, cluster, clock, repairs, metrics, admin, snapshots);
    this.draining = draining;
  }

  @Override
  protected void initChannel(SocketChannel channel) {
    if (tls != null) channel.pipeline().addLast("tls-sniff", new TlsSniffer(tls));
    // The first bytes say whether this is a peer connection or HTTP (PortSniffer).
    channel.pipeline().addLast("sniff", new PortSniffer(this::httpPipeline, peers, options.idleTimeoutMillis()));
    // Added to the group before the check: either ShaleServer.close sees this connection in the
    // group, or this sees that the server drains. A connection accepted during shutdown closes.
    connections.add(channel);
    if (draining.getAsBoolean()) channel.close();
  }

  private void httpPipeline(ChannelPipeline pipeline) {
    // A port that takes peers asks for a client certificate without requiring one: with a client
    // CA, what the handshake did not require is required here (NodeTls.httpClientRefusal).
    String refusal = tls == null ? null : tls.httpClientRefusal(pipeline.channel());
    if (refusal != null) {
      pipeline.addLast("refused", new ClientCertificateRefusal(refusal));
      return;
    }
    // Read once per connection: a connection keeps the certificate it shook hands with.
    if (tls != null) pipeline.channel().attr(NodeTls.CLIENT_IDENTITY).set(tls.clientIdentity(pipeline.channel()));
    RequestTimeoutHandler requestTimeout = new RequestTimeoutHandler(options.requestTimeoutMillis());
    LingeringClose lingeringClose = new LingeringClose();
    pipeline.addLast("linger", lingeringClose);
    pipeline.addLast("idle", new IdleStateHandler(0, 0, options.idleTimeoutMillis(), TimeUnit.MILLISECONDS));
    pipeline.addLast("request-timeout", requestTimeout);
    pipeline.addLast("http", new StrictServerCodec(decoderConfig()));
    pipeline.addLast("flow", new FlowControlHandler());
    pipeline.addLast("aggregator", new RequestAggregator(options.maxValueSizeBytes(), budget, requestTimeout, lingeringClose, env::nanoTime));
    pipeline.addLast("entity", new EntityHttpHandler(service, pool, budget, answerBudget, valueSizes, options, cluster, coordinator,
        scans, nodeRoutes, metrics, loop -> writeGroups.computeIfAbsent(loop, l -> new LoopWriteGroup(l, service))));
  }

  private static HttpDecoderConfig decoderConfig() {
    // Strict line parsing (no bare LF) and RFC 9112 Transfer-Encoding rules (none in HTTP/1.0,
    // none with Content-Length) are Netty's defaults; set here so that no system property can
    // turn them off. Two Content-Length headers are refused, even equal ones.
    return new HttpDecoderConfig()
        .setMaxInitialLineLength(MAX_REQUEST_LINE_BYTES)
        .setMaxHeaderSize(MAX_HEADER_BYTES)
        .setMaxChunkSize(MAX_CHUNK_BYTES)
        .setStrictLineParsing(true)
        .setUseRfc9112TransferEncoding(true)
        .setAllowDuplicateContentLengths(false)
        .setValidateHeaders(true);
  }
}
