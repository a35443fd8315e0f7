package dev.shale.server.peer;

import dev.shale.cluster.ClockOffsets;
import dev.shale.server.EntityResult;
import dev.shale.server.EntityService;
import dev.shale.server.LentValueBuf;
import dev.shale.server.StoragePool;
import dev.shale.server.http.AnswerBudget;
import dev.shale.server.http.ConnectionEvent;
import dev.shale.storage.Engine;
import dev.shale.storage.HybridClock;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.ThrottledLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.collection.LongObjectHashMap;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Serves an authenticated peer connection's requests from this node's own store, never
 * coordinated again (docs/format.md, "Internode protocol"; docs/design.md, "Peer messaging"):
 *
 * <ul>
 *   <li>READ: {@link EntityService#getFromMemory} on the event loop when memory answers it, else
 *       {@link EntityService#readForPeer}, on the storage pool (the read may fault pages
 *       in), after the heap its answer may take is reserved in the node's {@link AnswerBudget},
 *       as for a client's read; a large value is lent and written from where it lies.
 *   <li>WRITE: {@link EntityService#tryWrite} on the event loop when the engine can take it at
 *       once, else {@link EntityService#write} on the pool; a version too far ahead of this
 *       node's clock is refused, whoever sends it: FAILED 5, or FAILED 2 while this node's own
 *       clock is fenced (then the clock, not the version, may be wrong: the coordinator keeps a
 *       hint).
 *   <li>CLOCK_ASK: answered at once with this node's wall clock ({@link ClockOffsets}).
 *   <li>READ and WRITE addressed with a cluster map older than this node's placement are refused
 *       (FAILED 1), and a write is counted in its {@link MapFence} epoch until it is stored.
 *   <li>SCAN, TREE, DIGESTS: handed to {@link PeerScans}; the connection is the request's from
 *       then on.
 * </ul>
 *
 * <p>Answers written while a read batch is handled are flushed once at its end; those completed
 * on the pool by one scheduled flush. At most {@link #MAX_IN_FLIGHT} requests are served at once:
 * past them the connection is not read until answers drain, and TCP pushes back on the sender.
 *
 * <p>Confined to the channel's event loop (storage calls hand their results back to it).
 */
public final class PeerRequestHandler extends ChannelInboundHandlerAdapter {
  /** Requests of one connection served at once. */
  static final int MAX_IN_FLIGHT = 1024;
  /** Longest key: the API's longest id. */
  static final int MAX_KEY_BYTES = EntityService.MAX_ID_BYTES;

  private static final System.Logger LOG = System.getLogger(PeerRequestHandler.class.getName());
  private static final ThrottledLog VERSION_AHEAD_LOG = new ThrottledLog(LOG, Level.WARNING, ThrottledLog.DEFAULT_INTERVAL_MILLIS);

  private final String sender;
  private final EntityService service;
  private final @Nullable StoragePool pool; // null: storage calls run inline on the event loop
  private final AnswerBudget answerBudget;
  private final PeerScans scans;
  private final MapFence fence;
  private final ClockOffsets clock;
  private final int maxValueBytes;
  private final long readReserveBytes; // per READ, until its answer is written
  private final LongObjectHashMap<Boolean> inFlight = new LongObjectHashMap<>();
  private @Nullable ChannelHandlerContext ctx;
  private boolean reading; // in channelRead..channelReadComplete: answers are flushed at its end
  private boolean flushScheduled;
  private boolean finishing; // the server drains: close once nothing is owed
  private boolean scanning; // the connection was handed to a scan

  public PeerRequestHandler(String sender, EntityService service, @Nullable StoragePool pool, AnswerBudget answerBudget, PeerScans scans,
      MapFence fence, ClockOffsets clock, int maxValueBytes) {
    this.sender = sender;
    this.fence = fence;
    this.clock = clock;
    this.service = service;
    this.pool = pool;
    this.answerBudget = answerBudget;
    this.scans = scans;
    this.maxValueBytes = maxValueBytes;
    // A value below Engine.LEND_MIN_VALUE_BYTES is copied to the heap; a larger one is lent.
    this.readReserveBytes = answerBudget.fit(Math.min(maxValueBytes, Engine.LEND_MIN_VALUE_BYTES));
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    reading = true;
    if (scanning || !(msg instanceof PeerMessage.Request request)) {
      if (msg instanceof PeerMessage.ScanData data) data.data().release();
      PeerConnections.closeOnError(ctx, new IllegalStateException("a frame of type 0x" + Integer.toHexString(((PeerMessage) msg).type())
          + (scanning ? " on a scan's connection" : " after the handshake")), connection());
      return;
    }
    long id = request.id();
    if (id == 0 || inFlight.containsKey(id)) {
      PeerConnections.closeOnError(ctx, new IllegalStateException("request id " + Long.toUnsignedString(id)
          + (id == 0 ? " (ids start at 1)" : " is in flight already")), connection());
      return;
    }
    switch (request) {
      case PeerMessage.Read read -> {
        if (refusedKey(id, read.key()) || refusedByFence(id, fence.refusal(read.mapVersion()))) return;
        started(id);
        reserveThenRead(read);
      }
      case PeerMessage.Write write -> {
        if (refusedKey(id, write.key()) || refusedWrite(write)) return;
        MapFence.Epoch epoch = fence.enter(write.mapVersion());
        if (epoch == null) {
          refusedByFence(id, fence.refusal(write.mapVersion()));
          return;
        }
        started(id);
        write(write, epoch);
      }
      case PeerMessage.ClockAsk ask -> answerNow(new PeerMessage.Clock(ask.id(), clock.wallMillis()));
      case PeerMessage.Scan scan -> {
        takenOver(ctx);
        scans.scan(ctx, id, scan.start(), scan.end(), scan.gained());
      }
      case PeerMessage.Tree tree -> {
        takenOver(ctx);
        scans.tree(ctx, tree);
      }
      case PeerMessage.Digests digests -> {
        takenOver(ctx);
        scans.digests(ctx, digests);
      }
    }
  }

  /** A request that has the connection to itself (SCAN, TREE, DIGESTS): nothing more is read here. */
  private void takenOver(ChannelHandlerContext ctx) {
    scanning = true;
    ctx.channel().config().setAutoRead(false);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    reading = false;
    ctx.flush();
    ctx.fireChannelReadComplete();
  }

  private boolean refusedKey(long id, byte[] key) {
    if (key.length > 0 && key.length <= MAX_KEY_BYTES) return false;
    answerNow(new PeerMessage.Failed(id, PeerMessage.Failed.REFUSED, "a key of " + key.length + " bytes (1 to " + MAX_KEY_BYTES + ")"));
    return true;
  }

  /**
   * A write this node must not store: a value over its limit, or a version so far ahead of its
   * clock that, stored, it would win over every later write of its key (docs/design.md, "The
   * version-skew bound"). FAILED 5 says the version is beyond the bound, which only a node whose
   * own clock is within the cluster's can say; a fenced one ("Clock offsets") answers FAILED 2.
   * A version within the bound is stored even while fenced: it is the coordinator's, not this
   * node's clock's.
   */
  private boolean refusedWrite(PeerMessage.Write write) {
    byte[] value = write.value();
    if (value != null && value.length > maxValueBytes) {
      answerNow(new PeerMessage.Failed(write.id(), PeerMessage.Failed.TOO_LARGE, "a value of " + value.length
          + " bytes is over this node's --max-value-size of " + maxValueBytes));
      return true;
    }
    long aheadMillis = service.aheadOfClockMillis(write.version());
    if (aheadMillis <= HybridClock.MAX_AHEAD_MILLIS) return false;
    String reason = "the record's version " + Long.toUnsignedString(write.version()) + " is " + aheadMillis
        + " ms ahead of this node's clock (at most " + HybridClock.MAX_AHEAD_MILLIS + " ms): not stored";
    String fenced = clock.fence();
    VERSION_AHEAD_LOG.log("refusing replica writes from " + sender + ": " + reason);
    if (fenced != null) answerNow(new PeerMessage.Failed(write.id(), PeerMessage.Failed.OVERLOADED, reason + "; and " + fenced));
    else answerNow(new PeerMessage.Failed(write.id(), PeerMessage.Failed.TOO_FAR_AHEAD, reason));
    return true;
  }

  /** Whether {@code refusal} (the fence's: the sender's map is older than this node's placement) refused request {@code id}. */
  private boolean refusedByFence(long id, @Nullable String refusal) {
    if (refusal == null) return false;
    answerNow(new PeerMessage.Failed(id, PeerMessage.Failed.REFUSED, refusal));
    return true;
  }

  private void reserveThenRead(PeerMessage.Read read) {
    if (answerBudget.tryReserve(readReserveBytes)) {
      read(read);
    } else {
      answerBudget.park(readReserveBytes, ctx().executor(), () -> {
        if (ctx().channel().isActive()) read(read);
        else answerBudget.release(readReserveBytes);
      });
    }
  }

  // The reserved bytes are given back once the answer is written (or dropped).
  private void read(PeerMessage.Read read) {
    long id = read.id();
    Supplier<PeerMessage.Answer> work = () -> readAnswer(id, service.readForPeer(read.key()));
    if (pool == null) {
      PeerMessage.Answer answer = work.get();
      answer(answer, holdFor(answer, readReserveBytes));
      return;
    }
    // A read memory answers costs less here than the pool's two hand-offs.
    EntityResult inMemory = service.getFromMemory(read.key());
    if (inMemory != null) {
      PeerMessage.Answer answer = readAnswer(id, inMemory);
      answer(answer, holdFor(answer, readReserveBytes));
      return;
    }
    boolean accepted = pool.trySubmit(() -> backOnLoop(work.get(), readReserveBytes));
    if (!accepted) answer(overloaded(id), readReserveBytes);
  }

  /** Stores {@code write}, then leaves {@code epoch} (before the answer: the record is in the store then). */
  private void write(PeerMessage.Write write, MapFence.Epoch epoch) {
    long id = write.id();
    if (pool == null) {
      EntityResult result = storeIn(epoch, write);
      answer(writeAnswer(id, result), 0);
      return;
    }
    // A write the engine can do without waiting costs less here than the pool's two hand-offs.
    EntityResult atOnce = service.tryWrite(write.key(), write.value(), write.version(), write.expiresAtMillis());
    if (atOnce != null) {
      epoch.leave();
      answer(writeAnswer(id, atOnce), 0);
      return;
    }
    boolean accepted = pool.trySubmit(() -> backOnLoop(writeAnswer(id, storeIn(epoch, write)), 0));
    if (!accepted) {
      epoch.leave();
      answer(overloaded(id), 0);
    }
  }

  private EntityResult storeIn(MapFence.Epoch epoch, PeerMessage.Write write) {
    try {
      return service.write(write.key(), write.value(), write.version(), write.expiresAtMillis());
    } finally {
      epoch.leave();
    }
  }

  private PeerMessage.Failed overloaded(long id) {
    return new PeerMessage.Failed(id, PeerMessage.Failed.OVERLOADED, "this node's storage workers are all taken ("
        + Objects.requireNonNull(pool).queued() + " queued); retry later");
  }

  /**
   * The answer bytes {@code answer} holds until written, from {@code reservedBytes} taken before
   * its read: a lent value larger than that counts at its size, since it holds the engine's native
   * memory (its block) until then.
   */
  private long holdFor(PeerMessage.Answer answer, long reservedBytes) {
    if (reservedBytes == 0 || !(answer instanceof PeerMessage.Value value) || !(value.value() instanceof LentValueBuf)) {
      return reservedBytes;
    }
    long excess = value.value().readableBytes() - reservedBytes;
    if (excess <= 0) return reservedBytes;
    answerBudget.forceReserve(excess);
    return reservedBytes + excess;
  }

  // On a storage worker.
  private void backOnLoop(PeerMessage.Answer answer, long reservedBytes) {
    long held = holdFor(answer, reservedBytes);
    try {
      ctx().executor().execute(() -> answer(answer, held));
    } catch (RejectedExecutionException e) {
      // The event loop is gone (a forced shutdown): so is the connection.
      release(answer);
      answerBudget.release(held);
    }
  }

  private static PeerMessage.Answer readAnswer(long id, EntityResult result) {
    return switch (result.outcome()) {
      case FOUND -> new PeerMessage.Value(id, result.version(), valueOf(result), result.expiresAtMillis());
      case NOT_FOUND -> result.isTombstone() ? new PeerMessage.Tombstone(id, result.version()) : new PeerMessage.Absent(id);
      default -> failed(id, result);
    };
  }

  // A lent value's lease passes to the frame: releasing the buffer ends it.
  private static ByteBuf valueOf(EntityResult result) {
    ReadRecord.Lent lent = result.lent();
    return lent == null ? Unpooled.wrappedBuffer(result.requireValue()) : LentValueBuf.of(lent);
  }

  private static PeerMessage.Answer writeAnswer(long id, EntityResult result) {
    return switch (result.outcome()) {
      case STORED, DELETED -> new PeerMessage.Stored(id);
      default -> failed(id, result);
    };
  }

  private static PeerMessage.Failed failed(long id, EntityResult result) {
    int code = result.outcome() == EntityResult.Outcome.OVERLOADED ? PeerMessage.Failed.OVERLOADED : PeerMessage.Failed.STORAGE_FAILED;
    return new PeerMessage.Failed(id, code, Objects.requireNonNullElse(result.reason(), result.outcome().toString()));
  }

  private void started(long id) {
    inFlight.put(id, Boolean.TRUE);
    if (inFlight.size() >= MAX_IN_FLIGHT) ctx().channel().config().setAutoRead(false);
  }

  /** An answer to a request that was never started (refused before any work). */
  private void answerNow(PeerMessage.Answer answer) {
    writeOut(answer, 0);
  }

  private void answer(PeerMessage.Answer answer, long reservedBytes) {
    if (inFlight.remove(answer.id()) == null || !ctx().channel().isActive()) {
      release(answer);
      answerBudget.release(reservedBytes);
      return;
    }
    writeOut(answer, reservedBytes);
    if (finishing && inFlight.isEmpty()) {
      ctx().flush();
      ctx().close();
      return;
    }
    if (!finishing && inFlight.size() < MAX_IN_FLIGHT && !ctx().channel().config().isAutoRead()) {
      ctx().channel().config().setAutoRead(true);
    }
  }

  private void writeOut(PeerMessage.Answer answer, long reservedBytes) {
    ChannelHandlerContext c = ctx();
    if (reservedBytes == 0) c.write(answer, c.voidPromise());
    else c.write(answer).addListener(f -> answerBudget.release(reservedBytes));
    if (reading || flushScheduled) return;
    flushScheduled = true;
    c.executor().execute(() -> {
      flushScheduled = false;
      c.flush();
    });
  }

  private static void release(PeerMessage.Answer answer) {
    if (answer instanceof PeerMessage.Value value) value.value().release();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event == ConnectionEvent.FINISH || event == ChannelInputShutdownEvent.INSTANCE) {
      // The server drains, or the peer closed its side (the server's connections allow half
      // closure, so its FIN alone closes nothing): read no more requests, answer those taken,
      // then close. Without this, every connection of a peer that went away stayed half open
      // until this node's own shutdown, which then waited its whole drain timeout for them.
      finishing = true;
      ctx.channel().config().setAutoRead(false);
      if (inFlight.isEmpty() && !scanning) ctx.close();
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    PeerConnections.closeOnError(ctx, cause, connection());
  }

  private String connection() {
    return "peer connection from " + sender + " at " + ctx().channel().remoteAddress();
  }

  private ChannelHandlerContext ctx() {
    return Objects.requireNonNull(ctx, "handlerAdded() comes first");
  }
}
