package dev.shale.server.http;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.ClockOffsets;
import dev.shale.cluster.Cluster;
import dev.shale.cluster.Consistency;
import dev.shale.cluster.auth.TokenAuth;
import dev.shale.cluster.coordination.Coordinator;
import dev.shale.cluster.coordination.ReplicationStats;
import dev.shale.cluster.handoff.RangeProgress;
import dev.shale.cluster.repair.RepairReport;
import dev.shale.server.EntityResult;
import dev.shale.server.EntityService;
import dev.shale.server.LentValueBuf;
import dev.shale.server.MemoryUse;
import dev.shale.server.NodeAdmin;
import dev.shale.server.Reasons;
import dev.shale.server.RepairBody;
import dev.shale.server.ServerOptions;
import dev.shale.server.StatusBody;
import dev.shale.server.tls.NodeTls;
import dev.shale.server.StoragePool;
import dev.shale.server.metrics.NodeMetrics;
import dev.shale.server.metrics.RequestRoute;
import dev.shale.server.repair.RepairRunner;
import dev.shale.server.scan.Scans;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.ReadRecord;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Translates the requests of one connection into calls of the {@link EntityService}, and their
 * results into responses, which it writes in request order.
 *
 * <p>Routes: {@code /v0/entity} (GET, PUT, DELETE), {@code /v0/status} (GET), {@code /metrics}
 * (GET: {@link NodeMetrics}, the Prometheus text format) and
 * {@code /v0/admin/compact} and {@code /v0/admin/repair} (POST), the cluster map's
 * {@code /v0/admin/topology} routes ({@link TopologyRoutes}); every {@code /v0/admin} request
 * passes the {@link AdminGate} first (signed with the cluster secret on a node that has one). A storage
 * call runs on the {@link StoragePool} (or inline on the event loop when there is none), when
 * {@link CallOrder} lets it start; a client's write joins its event loop's {@link LoopWriteGroup}
 * first, and goes to the pool only if the engine cannot take the group without waiting; its result comes back to the event loop and takes its place
 * in the {@link ResponseQueue}. In a cluster, a client's request whose replicas (the first
 * {@code from} of the key's preference list) are not this node alone is handed to the
 * {@link Coordinator} instead (also in {@link CallOrder}'s turn), and its outcome takes the slot
 * once {@code ack} replicas answered. Replica reads and writes do not come here: they travel
 * over the internode protocol ({@code dev.shale.server.peer}); an entity request is a client's,
 * whatever headers it carries.
 * Range scans ({@code /v0/entities}) go to
 * {@link Scans}; their answers stream in their turn ({@link StreamingAnswer}), as a read in
 * {@link CallOrder}, from their start to their last chunk.
 *
 * <p>Flow control: the handler stops reading the connection while it owes
 * {@code maxPipelinedRequests} answers, while the client is not reading what was written
 * (the channel is not writable), or while its answers not yet written hold its whole
 * {@link AnswerShare}, and reads again once all clear. A read (a GET, served here or
 * coordinated) starts only once the bytes its answer can take before its size is known are
 * taken from the connection's share and the node's {@link AnswerBudget}; they come to the
 * answer's size (a lent value's too: it holds native memory) and are given back as its write
 * completes. So one connection holds at most that many requests, and answer bytes up to its
 * share, and the node at most its answer budget, but for answers larger than their reservation
 * (docs/design.md, "Memory per connection and per node").
 *
 * <p>Confined to the channel's event loop, except {@link #finish}, which storage workers call.
 */
public final class EntityHttpHandler extends ChannelInboundHandlerAdapter {
  static final String ENTITY_PATH = "/v0/entity";
  static final String STATUS_PATH = "/v0/status";
  static final String COMPACT_PATH = "/v0/admin/compact";
  static final String ENTITY_METHODS = "GET, PUT, DELETE";
  static final String STATUS_METHODS = "GET";
  static final String COMPACT_METHODS = "POST";
  static final String REPAIR_PATH = "/v0/admin/repair";
  static final String REPAIR_METHODS = "POST";
  static final String METRICS_PATH = "/metrics";
  static final String METRICS_METHODS = "GET";

  private static final System.Logger LOG = System.getLogger(EntityHttpHandler.class.getName());

  private final EntityService service;
  private final @Nullable StoragePool pool; // null: storage calls run inline on the event loop
  private final BodyBudget budget;
  private final ServerOptions options;
  private final @Nullable Coordinator coordinator; // null unless the cluster has other nodes
  private final @Nullable ClockOffsets clock; // null unless the cluster has other nodes
  private final ReplicationStats stats;
  private final Supplier<List<RangeProgress>> handoff; // the pulls of a pending node change
  private final @Nullable Cluster cluster; // null without --cluster
  private final @Nullable TopologyRoutes topology; // null without a cluster
  private final Scans scans;
  private final AdminGate adminGate;
  private final @Nullable TokenGate tokenGate; // null: the node keeps no tokens
  private final @Nullable TokenRoutes tokenRoutes; // null: the node keeps no tokens
  private final @Nullable SnapshotRoutes snapshots; // null: this node takes no snapshots
  private final AnswerBudget answerBudget;
  private final RecentValueSizes valueSizes; // node-wide
  private final @Nullable RepairRunner repairs; // null without peers
  private final Function<EventExecutor, LoopWriteGroup> writeGroups; // one per event loop
  private @Nullable LoopWriteGroup writeGroup; // this channel's loop's, set in handlerAdded
  private @Nullable AnswerShare share; // set in handlerAdded: it runs on the channel's loop
  private final NodeMetrics metrics;
  private final ResponseQueue responses;
  private final CallOrder calls = new CallOrder(bytes -> share().tryTake(bytes));
  private @Nullable ChannelHandlerContext ctx;
  // Read no more, close once nothing is owed (ConnectionEvent.FINISH).
  private boolean finishing;
  // An answer that closes the connection is queued: read no more.
  private boolean closing;

  public EntityHttpHandler(
      EntityService service, @Nullable StoragePool pool, BodyBudget budget, AnswerBudget answerBudget, RecentValueSizes valueSizes, ServerOptions options,
      @Nullable Cluster cluster, @Nullable Coordinator coordinator, @Nullable ClockOffsets clock, ReplicationStats stats,
      Supplier<List<RangeProgress>> handoff, Scans scans, @Nullable RepairRunner repairs, NodeMetrics metrics,
      NodeAdmin admin, @Nullable SnapshotRoutes snapshots, Function<EventExecutor, LoopWriteGroup> writeGroups) {
    this.writeGroups = writeGroups;
    this.metrics = metrics;
    this.responses = new ResponseQueue(bytes -> share().release(bytes), metrics.http());
    this.snapshots = snapshots;
    this.scans = scans;
    this.handoff = handoff;
    this.repairs = repairs;
    this.answerBudget = answerBudget;
    this.valueSizes = valueSizes;
    this.service = service;
    this.pool = pool;
    this.budget = budget;
    this.options = options;
    this.coordinator = coordinator;
    this.clock = clock;
    this.stats = stats;
    this.cluster = cluster;
    this.topology = cluster == null ? null : new TopologyRoutes(cluster.membership());
    this.adminGate = adminGate(cluster, admin);
    TokenAuth tokens = admin.tokens();
    AdminSignatures signatures = signatures(cluster, admin);
    this.tokenGate = tokens == null ? null
        : new TokenGate(tokens, signatures == null ? null : AdminGate.signed(signatures), EntityService.MAX_ID_BYTES);
    this.tokenRoutes = tokens == null ? null : new TokenRoutes(tokens, service::wallMillis, EntityService.MAX_ID_BYTES);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.writeGroup = writeGroups.apply(ctx.executor());
    long share = AnswerShare.shareOf(answerBudget.limitBytes(), answerBudget.fit(options.maxValueSizeBytes()));
    this.share = new AnswerShare(answerBudget, share, ctx.executor(), () -> {
      calls.resume();
      afterChange();
    });
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closing) {
      // RFC 9112 9.6: no request after one that closes the connection is processed. Reading
      // stops when such a request comes, but requests decoded from the same bytes still arrive
      // (the codec hands over what it holds when the connection closes): dropped, never run.
      if (msg instanceof InboundRequest.Received request) budget.release(request.reservedBytes());
      ReferenceCountUtil.release(msg);
      return;
    }
    switch (msg) {
      case InboundRequest.Received request -> onRequest(request);
      case InboundRequest.Refused refused -> answer(
          refused.keepAlive(), Responses.error(refused.version(), refused.status(), refused.reason()), refused.method(),
          routeOf(refused.target()), refused.headNanos() != 0 ? refused.headNanos() : metrics.http().nowNanos());
      case InboundRequest.ContinueExpected ignored -> responses.addContinue();
      default -> {
        ReferenceCountUtil.release(msg);
        throw new IllegalStateException("unexpected message " + msg.getClass().getName());
      }
    }
    afterChange();
  }

  /** What a request comes to: an answer now, or a storage call whose result is the answer. */
  private sealed interface Action {}

  private record Answer(FullHttpResponse response) implements Action {}

  /**
   * A call of the engine; {@code usesBody}: the body must live until the call returns.
   * {@code grouped}, for a client's write: the record it writes, which first joins the event
   * loop's write group; {@code work} runs on the pool only if the engine cannot take the group.
   * {@code answersValue}: its answer may carry a stored value (its answer bytes are taken first).
   */
  private record Call(
      Supplier<EntityResult> work, @Nullable Supplier<@Nullable EntityResult> fromMemory,
      EntityService.@Nullable Write grouped, boolean write, boolean usesBody, boolean answersValue)
      implements Action {
    /** A read, which {@code fromMemory} answers on the event loop when it can (null: it cannot), and {@code work} otherwise. */
    static Call read(Supplier<EntityResult> work, Supplier<@Nullable EntityResult> fromMemory) {
      return new Call(work, fromMemory, null, false, false, true);
    }

    /** An operator's call: not a write (it changes no record), answered with a line. */
    static Call operation(Supplier<EntityResult> work) {
      return new Call(work, null, null, false, false, false);
    }

    static Call write(Supplier<EntityResult> work, EntityService.Write grouped, boolean usesBody) {
      return new Call(work, null, grouped, true, usesBody, false);
    }
  }

  /**
   * An operator's call whose answer comes later, on another thread (a repair, a change of the
   * cluster map): it starts in its turn, and its answer comes when the future completes.
   */
  private record Pending(Supplier<CompletableFuture<FullHttpResponse>> start) implements Action {}

  /** A scan: its answer streams when its turn comes. */
  private record Stream(StreamingAnswer answer) implements Action {}

  /** A client's request coordinated over its key's replicas; {@code value} null: a read or a delete. */
  private record Coordinate(byte[] key, byte @Nullable [] value, boolean write, Consistency consistency, long ttlMillis)
      implements Action {}

  private void onRequest(InboundRequest.Received request) {
    HttpRequest head = request.head();
    HttpVersion version = head.protocolVersion();
    RequestTarget target = RequestTarget.parse(head.uri());
    ResponseQueue.Slot slot = takeSlot(HttpUtil.isKeepAlive(head) && !finishing, head.method(), routeOfPath(target.path()),
        request.headNanos());
    Action action = finishing
        ? new Answer(Responses.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE, "the node is shutting down"))
        : route(request, target);
    long bodyBytes = usesBody(action) ? request.reservedBytes() : 0;
    budget.release(request.reservedBytes() - bodyBytes); // a body no call uses is let go now
    switch (action) {
      case Answer answer -> responses.complete(slot, answer.response());
      case Call call -> {
        // A local read's answer holds its value until written, copied to the heap (below
        // Engine.LEND_MIN_VALUE_BYTES) or lent from the engine's native memory: reserve the size
        // of values lately seen (at least 64 KiB), and complete() settles at its real size. A
        // value written here is one of those: a GET of it may follow.
        if (call.usesBody()) valueSizes.note(bodyBytes);
        long answerBytes = call.answersValue() ? answerBudget.fit(valueSizes.largest()) : 0;
        calls.submit(call.write(), answerBytes, () -> start(call, version, bodyBytes, slot, answerBytes));
      }
      case Coordinate coordinate -> {
        // Until the read is decided every replica's answer may be in memory at once, each with
        // the value: one value each, of the size lately seen (RecentValueSizes).
        byte @Nullable [] written = coordinate.value();
        if (written != null) valueSizes.note(written.length);
        long answerBytes = coordinate.write() ? 0
            : answerBudget.fit(coordinate.consistency().from() * valueSizes.largest());
        calls.submit(coordinate.write(), answerBytes, () -> start(coordinate, version, bodyBytes, slot, answerBytes));
      }
      case Pending pending -> calls.submit(false, () -> pending.start().get().whenComplete((response, failure) ->
          finish(slot, 0, false, response != null ? response : Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR,
              Reasons.oneLine(String.valueOf(failure))))));
      case Stream stream -> calls.submit(false, () -> responses.stream(slot, stream.answer(), () -> {
        calls.finished(false);
        afterChange();
      }));
    }
  }

  private static boolean usesBody(Action action) {
    return switch (action) {
      case Answer ignored -> false;
      case Call call -> call.usesBody();
      case Coordinate coordinate -> coordinate.value() != null;
      case Pending ignored -> false;
      case Stream ignored -> false;
    };
  }

  private Action route(InboundRequest.Received request, RequestTarget target) {
    HttpRequest head = request.head();
    TokenGate tokens = tokenGate;
    if (tokens != null && tokens.active()) {
      // Tokens replace the loopback rule: an admin call passes with the admin scope or a signature.
      switch (tokens.decide(head, target, request.body(), ctx().channel().remoteAddress(),
          ctx().channel().attr(NodeTls.CLIENT_IDENTITY).get())) {
        case TokenGate.Decision.Refuse refuse -> {
          return new Answer(refuse.response());
        }
        case TokenGate.Decision.HealthOnly ignored -> {
          return new Answer(health(head));
        }
        case TokenGate.Decision.Pass ignored -> {
          return routeAllowed(request, target);
        }
      }
    }
    if (AdminGate.isAdmin(target.path())) {
      FullHttpResponse refusal = adminGate.refusal(head, request.body(), ctx().channel().remoteAddress());
      if (refusal != null) return new Answer(refusal);
    }
    return routeAllowed(request, target);
  }

  /** Routes a request its credentials allow. */
  private Action routeAllowed(InboundRequest.Received request, RequestTarget target) {
    HttpRequest head = request.head();
    String refusal = clientRefusal();
    if (refusal != null && (target.path().equals(ENTITY_PATH) || target.path().equals(Scans.ENTITIES_PATH))) {
      return new Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.SERVICE_UNAVAILABLE, refusal));
    }
    return switch (target.path()) {
      // Replica requests travel over the internode protocol (dev.shale.server.peer): a request
      // here is a client's, whatever headers it carries, and is coordinated as any.
      case ENTITY_PATH -> entity(head, target, request.body());
      case STATUS_PATH -> new Answer(status(head));
      case METRICS_PATH -> new Answer(metrics(head));
      case Scans.ENTITIES_PATH -> switch (scans.route(head, target)) {
        case Scans.Refused(FullHttpResponse response) -> new Answer(response);
        case Scans.Streamed(StreamingAnswer answer) -> new Stream(answer);
      };
      case COMPACT_PATH -> compact(head);
      case TopologyRoutes.TOPOLOGY_PATH, TopologyRoutes.JOIN_PATH, TopologyRoutes.REMOVE_PATH -> topology(head, target);
      case REPAIR_PATH -> repair(head);
      case SnapshotRoutes.SNAPSHOT_PATH, SnapshotRoutes.SNAPSHOTS_PATH -> snapshot(head, target);
      case TokenRoutes.TOKENS_PATH -> tokens(head, target);
      default -> new Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.BAD_REQUEST,
          "unknown path " + target.path() + "; the API is " + ENTITY_PATH + "?id=<id>"));
    };
  }

  private Action entity(HttpRequest head, RequestTarget target, byte[] body) {
    HttpMethod method = head.method();
    boolean get = HttpMethod.GET.equals(method);
    boolean put = HttpMethod.PUT.equals(method);
    if (!get && !put && !HttpMethod.DELETE.equals(method)) {
      return new Answer(Responses.methodNotAllowed(head.protocolVersion(), method.name(), ENTITY_METHODS));
    }
    byte[] key;
    try {
      key = EntityService.keyOf(target.query());
    } catch (InvalidRequestException e) {
      return new Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.BAD_REQUEST, Reasons.oneLine(e.getMessage())));
    }
    Consistency consistency;
    long ttlMillis;
    try {
      String ack = QueryParams.value(target.query(), "ack");
      String from = QueryParams.value(target.query(), "from");
      consistency = cluster == null ? Consistency.parse(ack, from, 1, 1) : cluster.consistency(ack, from);
      String ttl = QueryParams.value(target.query(), "ttl");
      if (ttl != null && !put) throw new InvalidRequestException("ttl is a parameter of PUT only, not of " + method.name());
      ttlMillis = TimeToLive.millis(ttl);
    } catch (InvalidRequestException | IllegalArgumentException e) {
      return new Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.BAD_REQUEST, Reasons.oneLine(e.getMessage())));
    }
    if (coordinator != null && !coordinator.isLocalOnly(key, consistency)) {
      return new Coordinate(key, put ? body : null, !get, consistency, ttlMillis);
    }
    if (get) return Call.read(() -> service.get(key), () -> service.getFromMemory(key));
    if (put) return Call.write(() -> service.put(key, body, ttlMillis), new EntityService.Write(key, body, ttlMillis), true);
    return Call.write(() -> service.delete(key), new EntityService.Write(key, null), false);
  }

  /**
   * Runs a storage call on the pool (inline when there is none; a client's write first in its
   * loop's write group) and queues its answer; the body's budget ({@code bodyBytes}) is released
   * once the call has returned. {@code answerBytes}, taken for the call's answer, are held by its
   * slot from now on, and come down to the answer's size once it is known.
   */
  private void start(Call call, HttpVersion version, long bodyBytes, ResponseQueue.Slot slot, long answerBytes) {
    responses.hold(slot, answerBytes);
    if (pool == null) {
      complete(slot, answerBytes, answerOf(call.work(), version, bodyBytes));
      calls.finished(call.write());
      return;
    }
    // A read that memory answers (memtables, cached blocks) costs less on the loop than the two
    // thread hand-offs of the pool; only one that must read the disk goes there.
    Supplier<@Nullable EntityResult> fromMemory = call.fromMemory();
    EntityResult answered = fromMemory == null ? null : fromMemory.get();
    if (answered != null) {
      complete(slot, answerBytes, answerOf(() -> answered, version, bodyBytes));
      calls.finished(false);
      return;
    }
    // A write the engine can do without waiting costs less on the loop than the two thread
    // hand-offs of the pool (docs/perf/replication.md), and less again in a group.
    EntityService.Write grouped = call.grouped();
    if (grouped != null) {
      writeGroup().add(grouped, result -> {
        if (result == null) {
          startOnPool(call, version, bodyBytes, slot, answerBytes);
        } else {
          budget.release(bodyBytes);
          responses.complete(slot, toResponse(result, version));
          calls.finished(true);
        }
        afterChange();
      });
      return;
    }
    startOnPool(call, version, bodyBytes, slot, answerBytes);
  }

  private void startOnPool(Call call, HttpVersion version, long bodyBytes, ResponseQueue.Slot slot, long answerBytes) {
    StoragePool pool = Objects.requireNonNull(this.pool, "a pool");
    boolean accepted = pool.trySubmit(() -> finish(slot, answerBytes, call.write(), answerOf(call.work(), version, bodyBytes)));
    if (!accepted) {
      budget.release(bodyBytes);
      complete(slot, answerBytes, Responses.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE,
          "the server is overloaded (" + pool.queued() + " storage calls queued); retry later"));
      calls.finished(call.write());
    }
  }

  /**
   * Sends a request to its key's replicas; the outcome fills the slot once it is decided. The
   * body's budget is released once every replica is done with it (or failed), which may be later.
   */
  private void start(Coordinate coordinate, HttpVersion version, long bodyBytes, ResponseQueue.Slot slot, long answerBytes) {
    Coordinator coordinator = Objects.requireNonNull(this.coordinator, "requests are coordinated only with peers");
    if (coordinate.write()) {
      coordinator.write(ctx().executor(), coordinate.key(), coordinate.value(), coordinate.ttlMillis(), coordinate.consistency(), outcome -> {
        responses.complete(slot, coordinated(coordinate, version, outcome));
        calls.finished(true);
        afterChange();
      }, () -> budget.release(bodyBytes));
      return;
    }
    // Until the read is decided the slot holds the whole reservation; from then on the answer
    // holds its size, and the read the value it keeps for read repair until it is all in.
    CoordinatedReadBytes held = new CoordinatedReadBytes(share(), answerBytes);
    responses.hold(slot, answerBytes);
    coordinator.read(ctx().executor(), coordinate.key(), coordinate.consistency(), outcome -> { // on this loop
      FullHttpResponse response = coordinated(coordinate, version, outcome);
      valueSizes.note(response.content().readableBytes());
      responses.hold(slot, held.decided(response.content().readableBytes(), valueBytes(outcome.newest())));
      responses.complete(slot, response);
      calls.finished(false);
      afterChange();
    }, newer -> held.newerKept(valueBytes(newer)), held::allIn);
  }

  private static long valueBytes(@Nullable Entry entry) {
    byte[] value = entry == null ? null : entry.value();
    return value == null ? 0 : value.length;
  }

  private static FullHttpResponse coordinated(Coordinate coordinate, HttpVersion version, Coordinator.Outcome outcome) {
    String shortfall = outcome.shortfall();
    if (shortfall != null) return Responses.error(version, HttpResponseStatus.GATEWAY_TIMEOUT, shortfall);
    if (coordinate.write()) {
      return Responses.empty(version, coordinate.value() == null ? HttpResponseStatus.ACCEPTED : HttpResponseStatus.CREATED);
    }
    Entry newest = outcome.newest();
    if (newest == null) return notFound(version, EntityResult.NO_VERSION);
    byte[] value = newest.value(); // null: a tombstone
    if (value == null) return notFound(version, newest.version());
    return withExpiry(withVersion(Responses.value(version, value), newest.version()), newest.expiresAtMillis());
  }

  // The call's answer; the body's budget (reservedBytes) is released once it has returned.
  private FullHttpResponse answerOf(Supplier<EntityResult> call, HttpVersion version, long reservedBytes) {
    EntityResult result = null;
    try {
      result = call.get();
      return toResponse(result, version);
    } catch (Throwable t) {
      if (result != null) result.closeLease(); // no answer took it
      // EntityService turns every failure into a result; this is a bug or an Error (say, out
      // of memory). The client still gets its answer.
      LOG.log(Level.ERROR, () -> "storage call failed unexpectedly: " + Reasons.oneLine(t.toString()));
      return Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + t);
    } finally {
      budget.release(reservedBytes);
    }
  }

  /** Called by a storage worker: hands the answer back to the connection's event loop. */
  private void finish(ResponseQueue.Slot slot, long answerBytes, boolean write, FullHttpResponse response) {
    try {
      ctx().executor().execute(() -> {
        complete(slot, answerBytes, response);
        calls.finished(write);
        afterChange();
      });
    } catch (RejectedExecutionException e) {
      // The event loop is gone (a forced shutdown): so is the connection, and the node's budget.
      ReferenceCountUtil.release(response);
    }
  }

  /** Fills a call's slot; the answer bytes taken for it ({@code answerBytes}) come to the answer's size. */
  private void complete(ResponseQueue.Slot slot, long answerBytes, FullHttpResponse response) {
    int bodyBytes = response.content().readableBytes();
    valueSizes.note(bodyBytes);
    // A lent value holds the engine's native memory (its block) until it is written: it counts
    // as a copy on the heap does, so lent values cannot pile up past the budget either.
    if (answerBytes > 0) responses.hold(slot, share().settle(answerBytes, bodyBytes));
    responses.complete(slot, response);
  }

  private static FullHttpResponse toResponse(EntityResult result, HttpVersion version) {
    return switch (result.outcome()) {
      case STORED -> Responses.empty(version, HttpResponseStatus.CREATED);
      case FOUND -> withExpiry(withVersion(foundValue(result, version), result.version()), result.expiresAtMillis());
      case NOT_FOUND -> notFound(version, result.version());
      case DELETED -> Responses.empty(version, HttpResponseStatus.ACCEPTED);
      case DONE -> Responses.text(version, HttpResponseStatus.OK, new String(result.requireValue(), StandardCharsets.UTF_8));
      case OVERLOADED -> Responses.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE, result.requireReason());
      case DISK_FULL -> Responses.error(version, HttpResponseStatus.INSUFFICIENT_STORAGE, result.requireReason());
      case FAILED -> Responses.error(version, HttpResponseStatus.INTERNAL_SERVER_ERROR, result.requireReason());
    };
  }

  // A lent value's lease passes to the response: its buffer ends it once released.
  private static FullHttpResponse foundValue(EntityResult result, HttpVersion version) {
    ReadRecord.Lent lent = result.lent();
    if (lent == null) return Responses.value(version, result.requireValue());
    return Responses.value(version, LentValueBuf.of(lent));
  }

  /** 404; with {@code version} (not {@link EntityResult#NO_VERSION}) it says a tombstone of that version. */
  private static FullHttpResponse notFound(HttpVersion version, long recordVersion) {
    FullHttpResponse response = Responses.error(version, HttpResponseStatus.NOT_FOUND, "no value for this id");
    if (recordVersion != EntityResult.NO_VERSION) {
      withVersion(response, recordVersion).headers().set(Responses.TOMBSTONE_HEADER, Responses.TOMBSTONE);
    }
    return response;
  }

  /** Says when a value expires (epoch milliseconds), if it does. */
  private static FullHttpResponse withExpiry(FullHttpResponse response, long expiresAtMillis) {
    if (expiresAtMillis != Entry.NEVER) response.headers().set(Responses.EXPIRES_HEADER, Long.toString(expiresAtMillis));
    return response;
  }

  private static FullHttpResponse withVersion(FullHttpResponse response, long recordVersion) {
    if (recordVersion != EntityResult.NO_VERSION) {
      response.headers().set(Responses.VERSION_HEADER, Long.toString(recordVersion));
    }
    return response;
  }

  /**
   * Why this node serves no client's entity or scan request now, or null: it was removed from the
   * cluster map, or its clock is fenced (docs/design.md, "Clock offsets").
   */
  private @Nullable String clientRefusal() {
    String removal = cluster == null ? null : cluster.removal();
    if (removal != null) return removal;
    return clock == null ? null : clock.fence();
  }

  private FullHttpResponse status(HttpRequest head) {
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
    NodeTls tls = ctx().channel().attr(NodeTls.OF_CONNECTION).get();
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
  private Action compact(HttpRequest head) {
    if (!HttpMethod.POST.equals(head.method())) {
      return new Answer(Responses.methodNotAllowed(head.protocolVersion(), head.method().name(), COMPACT_METHODS));
    }
    return Call.operation(service::compact);
  }

  /**
   * An operator's repair of the whole cluster (docs/design.md, "Anti-entropy repair"), run by
   * the node's repair thread, answered 200 with its report once done (minutes on a large store);
   * a node without peers has nothing to repair.
   */
  private Action repair(HttpRequest head) {
    HttpVersion version = head.protocolVersion();
    if (!HttpMethod.POST.equals(head.method())) {
      return new Answer(Responses.methodNotAllowed(version, head.method().name(), REPAIR_METHODS));
    }
    RepairRunner runner = repairs;
    if (runner == null) return new Answer(Responses.json(version, HttpResponseStatus.OK, RepairBody.of(RepairReport.NOTHING)));
    return new Pending(() -> runner.repairAll().thenApply(report -> Responses.json(version, HttpResponseStatus.OK, RepairBody.of(report))));
  }

  /** The snapshot routes: answered once the snapshot is made, listed or deleted. */
  private Action snapshot(HttpRequest head, RequestTarget target) {
    SnapshotRoutes routes = snapshots;
    if (routes == null) {
      return new Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.NOT_FOUND, "this node takes no snapshots"));
    }
    return new Pending(() -> routes.answer(head, target));
  }

  /** The API token routes: answered once the change is applied here. */
  private Action tokens(HttpRequest head, RequestTarget target) {
    TokenRoutes routes = tokenRoutes;
    if (routes == null) {
      return new Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.NOT_FOUND, "this node keeps no API tokens"));
    }
    return new Pending(() -> routes.answer(head, target.query()));
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

  /** The cluster map's routes (read it, join, remove): answered once the change is agreed. */
  private Action topology(HttpRequest head, RequestTarget target) {
    TopologyRoutes routes = topology;
    if (routes == null) {
      return new Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.NOT_FOUND, "this node is not part of a cluster"));
    }
    return new Pending(() -> routes.answer(head, target.path(), target.query()));
  }

  // method, route and startNanos: the request's, for the metrics (null: unknown, and its head's decoding time).
  private ResponseQueue.Slot takeSlot(boolean keepAlive, @Nullable HttpMethod method, RequestRoute route, long startNanos) {
    if (!keepAlive) closing = true;
    return responses.add(keepAlive, method, route, startNanos);
  }

  /**
   * Queues an answer that needs no storage call, to a request of {@code method} to {@code route}
   * whose head came at {@code startNanos}.
   */
  private void answer(
      boolean keepAlive, FullHttpResponse response, @Nullable HttpMethod method, RequestRoute route, long startNanos) {
    responses.complete(takeSlot(keepAlive && !finishing, method, route, startNanos), response);
  }

  /** The route family of a request-target, for the metrics; {@code target} null: no head was decoded. */
  private static RequestRoute routeOf(@Nullable String target) {
    return target == null ? RequestRoute.OTHER : routeOfPath(RequestTarget.parse(target).path());
  }

  private static RequestRoute routeOfPath(String path) {
    if (AdminGate.isAdmin(path)) return RequestRoute.ADMIN;
    return switch (path) {
      case ENTITY_PATH -> RequestRoute.ENTITY;
      case Scans.ENTITIES_PATH -> RequestRoute.ENTITIES;
      case STATUS_PATH -> RequestRoute.STATUS;
      case METRICS_PATH -> RequestRoute.METRICS;
      default -> RequestRoute.OTHER;
    };
  }

  /** After any change to what is owed: write what is ready, then decide whether to read or close. */
  private void afterChange() {
    responses.writeReady(ctx());
    if (finishing && responses.owed() == 0) {
      ctx().close();
      return;
    }
    updateReading();
  }

  private void updateReading() {
    boolean read = !closing && !finishing
        && responses.owed() < options.maxPipelinedRequests()
        && !share().isFull()
        && ctx().channel().isWritable();
    ChannelConfig config = ctx().channel().config();
    if (config.isAutoRead() != read) config.setAutoRead(read);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    responses.writabilityChanged();
    updateReading();
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    switch (event) {
      case IdleStateEvent ignored -> closeIfIdle();
      case ConnectionEvent.FINISH -> {
        finishing = true;
        afterChange();
      }
      case ConnectionEvent.REQUEST_TIMED_OUT -> {
        answer(false, Responses.error(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_TIMEOUT,
            "the request did not arrive within " + options.requestTimeoutMillis() + " ms"), null, RequestRoute.OTHER, metrics.http().nowNanos());
        afterChange();
      }
      default -> ctx.fireUserEventTriggered(event);
    }
  }

  private void closeIfIdle() {
    // Nothing moved either way for the idle timeout. Keep the connection only while the server
    // itself is working on an answer; a client that does not read its answers is let go.
    if (responses.owed() == 0 || !ctx().channel().isWritable()) ctx().close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    share().close();
    responses.discard();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!(cause instanceof IOException)) {
      // A connection reset is the client's business; anything else is worth a line.
      LOG.log(Level.WARNING, () -> "closing connection " + ctx.channel().remoteAddress() + ": "
          + Reasons.oneLine(cause.toString()));
    }
    ctx.close();
  }

  private ChannelHandlerContext ctx() {
    return Objects.requireNonNull(ctx, "handlerAdded() comes first");
  }

  private LoopWriteGroup writeGroup() {
    return Objects.requireNonNull(writeGroup, "handlerAdded() comes first");
  }

  private AnswerShare share() {
    return Objects.requireNonNull(share, "handlerAdded() comes first");
  }
}
