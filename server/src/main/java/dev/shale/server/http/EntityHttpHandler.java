package dev.shale.server.http;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.Consistency;
import dev.shale.cluster.coordination.Coordinator;
import dev.shale.server.EntityResult;
import dev.shale.server.http.RouteAction.Answer;
import dev.shale.server.http.RouteAction.Call;
import dev.shale.server.http.RouteAction.Coordinate;
import dev.shale.server.http.RouteAction.Pending;
import dev.shale.server.http.RouteAction.Stream;
import dev.shale.server.EntityService;
import dev.shale.server.Reasons;
import dev.shale.server.ServerOptions;
import dev.shale.server.StoragePool;
import dev.shale.server.metrics.NodeMetrics;
import dev.shale.server.metrics.RequestRoute;
import dev.shale.server.scan.Scans;
import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
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
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Translates the requests of one connection into calls of the {@link EntityService}, and their
 * results into responses, which it writes in request order.
 *
 * <p>Routes: {@code /v0/entity} (GET, PUT, DELETE) and {@code /v0/entities} here; every other
 * path (status, metrics, admin calls) and the gates every request passes first (tokens, admin
 * signatures) are the node's {@link NodeRoutes}, shared by its connections; what each request
 * comes to is a {@link RouteAction}, and {@link EntityResponses} make the data's answers. A storage
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
  static final String ENTITY_METHODS = "GET, PUT, DELETE";

  private static final System.Logger LOG = System.getLogger(EntityHttpHandler.class.getName());

  private final EntityService service;
  private final @Nullable StoragePool pool; // null: storage calls run inline on the event loop
  private final BodyBudget budget;
  private final ServerOptions options;
  private final @Nullable Coordinator coordinator; // null unless the cluster has other nodes
  private final @Nullable Cluster cluster; // null without --cluster
  private final Scans scans;
  private final NodeRoutes nodeRoutes; // node-wide: the gates, and the routes but the data's
  private final AnswerBudget answerBudget;
  private final RecentValueSizes valueSizes; // node-wide
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
      EntityService service, @Nullable StoragePool pool, BodyBudget budget, AnswerBudget answerBudget, RecentValueSizes valueSizes,
      ServerOptions options, @Nullable Cluster cluster, @Nullable Coordinator coordinator, Scans scans, NodeRoutes nodeRoutes,
      NodeMetrics metrics, Function<EventExecutor, LoopWriteGroup> writeGroups) {
    this.writeGroups = writeGroups;
    this.metrics = metrics;
    this.responses = new ResponseQueue(bytes -> share().release(bytes), metrics.http());
    this.scans = scans;
    this.nodeRoutes = nodeRoutes;
    this.answerBudget = answerBudget;
    this.valueSizes = valueSizes;
    this.service = service;
    this.pool = pool;
    this.budget = budget;
    this.options = options;
    this.coordinator = coordinator;
    this.cluster = cluster;
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

  private void onRequest(InboundRequest.Received request) {
    HttpRequest head = request.head();
    HttpVersion version = head.protocolVersion();
    RequestTarget target = RequestTarget.parse(head.uri());
    ResponseQueue.Slot slot = takeSlot(HttpUtil.isKeepAlive(head) && !finishing, head.method(), routeOfPath(target.path()),
        request.headNanos());
    RouteAction action = finishing
        ? new Answer(Responses.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE, "the node is shutting down"))
        : route(request, target);
    long bodyBytes = RouteAction.usesBody(action) ? request.reservedBytes() : 0;
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

  private RouteAction route(InboundRequest.Received request, RequestTarget target) {
    Answer refused = nodeRoutes.gate(request, target, ctx().channel());
    return refused != null ? refused : routeAllowed(request, target);
  }

  /** Routes a request its credentials allow. */
  private RouteAction routeAllowed(InboundRequest.Received request, RequestTarget target) {
    HttpRequest head = request.head();
    String refusal = nodeRoutes.clientRefusal();
    if (refusal != null && (target.path().equals(ENTITY_PATH) || target.path().equals(Scans.ENTITIES_PATH))) {
      return new Answer(Responses.error(head.protocolVersion(), HttpResponseStatus.SERVICE_UNAVAILABLE, refusal));
    }
    return switch (target.path()) {
      // Replica requests travel over the internode protocol (dev.shale.server.peer): a request
      // here is a client's, whatever headers it carries, and is coordinated as any.
      case ENTITY_PATH -> entity(head, target, request.body());
      case Scans.ENTITIES_PATH -> switch (scans.route(head, target)) {
        case Scans.Refused(FullHttpResponse response) -> new Answer(response);
        case Scans.Streamed(StreamingAnswer answer) -> new Stream(answer);
      };
      default -> nodeRoutes.route(head, target, ctx().channel());
    };
  }

  private RouteAction entity(HttpRequest head, RequestTarget target, byte[] body) {
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
          responses.complete(slot, EntityResponses.of(result, version));
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
        responses.complete(slot, EntityResponses.coordinated(true, coordinate.value() == null, version, outcome));
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
      FullHttpResponse response = EntityResponses.coordinated(false, false, version, outcome);
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

  // The call's answer; the body's budget (reservedBytes) is released once it has returned.
  private FullHttpResponse answerOf(Supplier<EntityResult> call, HttpVersion version, long reservedBytes) {
    EntityResult result = null;
    try {
      result = call.get();
      return EntityResponses.of(result, version);
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
      case NodeRoutes.STATUS_PATH -> RequestRoute.STATUS;
      case NodeRoutes.METRICS_PATH -> RequestRoute.METRICS;
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
