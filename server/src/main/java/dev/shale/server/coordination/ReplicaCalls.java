package dev.shale.server.coordination;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.cluster.coordination.ReplicaReply;
import dev.shale.cluster.coordination.Replicas;
import dev.shale.server.EntityResult;
import dev.shale.server.EntityService;
import dev.shale.server.Reasons;
import dev.shale.server.StoragePool;
import dev.shale.server.peer.MapFence;
import dev.shale.server.peer.PeerLinks;
import dev.shale.server.peer.PeerMessage;
import dev.shale.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's {@link Replicas} on a node: reads and writes one key on one replica, this node
 * or a peer, and hands the {@link ReplicaReply} to a callback on a given event loop (the loops
 * given are Netty's: the client connection's, or one of the server's for a hint delivery). This
 * node's replica is its engine, called on the
 * {@link StoragePool} (inline when there is none, or for a write the engine can do without
 * waiting); a peer gets a
 * READ or WRITE of the internode protocol (docs/format.md) through {@link PeerLinks}. No
 * thread waits for a peer.
 *
 * <p>Thread safe.
 */
public final class ReplicaCalls implements Replicas {
  /** How much of a peer's error body a failure reason quotes. */
  private static final int MAX_QUOTED_CHARS = 200;

  private final NodeAddress self;
  private final EntityService service;
  private final @Nullable StoragePool pool; // null: storage calls run inline on the event loop
  private final PeerLinks client; // of the peers: ReplicaCalls exist on a node that has some
  private final MissedWrites hints; // told of every peer that answers
  private final MapFence fence; // this node's own replica is fenced as a peer's is
  private final LongSupplier mapVersion; // of this node's cluster map now

  /**
   * @param fence what this node's own replica refuses, as {@code PeerRequestHandler} does for a peer's requests
   * @param mapVersion the version of this node's cluster map now, for the calls no placement named ({@link #mapVersion})
   */
  public ReplicaCalls(NodeAddress self, EntityService service, @Nullable StoragePool pool, PeerLinks client, MissedWrites hints,
      MapFence fence, LongSupplier mapVersion) {
    this.self = self;
    this.fence = fence;
    this.mapVersion = mapVersion;
    this.service = service;
    this.pool = pool;
    this.client = client;
    this.hints = hints;
  }

  @Override
  public NodeAddress self() {
    return self;
  }

  /**
   * The version of this node's cluster map now: what a call that no placement named carries (a
   * hint's delivery, a repair's write), being addressed to its replica by this node's map as it is.
   */
  public long mapVersion() {
    return mapVersion.getAsLong();
  }

  /** Reads {@code key}'s newest record on {@code replica}; {@code done} runs on {@code loop}. */
  @Override
  public void read(Executor loop, NodeAddress replica, byte[] key, long mapVersion, Consumer<ReplicaReply> done) {
    if (replica.equals(self)) {
      String refusal = fence.refusal(mapVersion);
      if (refusal != null) done.accept(new ReplicaReply.Failed(self.id() + ": " + refusal));
      else readLocally(eventLoop(loop), key, done);
      return;
    }
    remote(eventLoop(loop), replica, id -> new PeerMessage.Read(id, mapVersion, key), answer -> readAnswer(replica, key, answer), done);
  }

  private void readLocally(EventExecutor loop, byte[] key, Consumer<ReplicaReply> done) {
    // A read memory answers costs less here than the pool's two hand-offs. (Only on loop itself:
    // done must run there.)
    EntityResult inMemory = pool == null || !loop.inEventLoop() ? null : service.readFromMemory(key);
    if (inMemory != null) done.accept(readReply(key, inMemory));
    else local(loop, () -> readReply(key, service.read(key)), done);
  }

  /**
   * Writes {@code value} (null: a tombstone) with {@code version} to {@code replica}; {@code done}
   * runs on {@code loop}. The value array must not change from now on.
   */
  @Override
  public void write(Executor executor, NodeAddress replica, byte[] key, byte @Nullable [] value, long version,
      long expiresAtMillis, long mapVersion, Consumer<ReplicaReply> done) {
    EventExecutor loop = eventLoop(executor);
    if (replica.equals(self)) {
      MapFence.Epoch epoch = fence.enter(mapVersion);
      if (epoch == null) {
        done.accept(new ReplicaReply.Failed(self.id() + ": " + fence.refusal(mapVersion)));
        return;
      }
      // A write the engine can do without waiting costs less here than the pool's two hand-offs.
      // (Only on loop itself: done must run there.)
      EntityResult atOnce = pool == null || !loop.inEventLoop() ? null : service.tryWrite(key, value, version, expiresAtMillis);
      if (atOnce != null) {
        epoch.leave();
        done.accept(writeReply(atOnce));
      } else {
        local(loop, () -> {
          try {
            return writeReply(service.write(key, value, version, expiresAtMillis));
          } finally {
            epoch.leave();
          }
        }, done, epoch::leave);
      }
      return;
    }
    remote(loop, replica, id -> new PeerMessage.Write(id, mapVersion, version, key, value, expiresAtMillis), answer -> writeAnswer(replica, answer), done);
  }

  @Override
  public void schedule(Executor loop, long delayMillis, Runnable task) {
    try {
      eventLoop(loop).schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // The event loop is gone (a forced shutdown): so is the request.
    }
  }

  /**
   * Runs {@code task} (a disk write, such as keeping a hint) off the event loop, on the storage
   * pool; inline when there is none. False when the pool refused it (full).
   */
  @Override
  public boolean background(Runnable task) {
    if (pool == null) {
      task.run();
      return true;
    }
    return pool.trySubmit(task);
  }

  /** The event loop {@code loop} is: the coordinator is handed only those here. */
  private static EventExecutor eventLoop(Executor loop) {
    if (loop instanceof EventExecutor eventLoop) return eventLoop;
    throw new IllegalArgumentException("replica calls complete on a Netty event loop, not on " + loop);
  }

  private void local(EventExecutor loop, Supplier<ReplicaReply> work, Consumer<ReplicaReply> done) {
    local(loop, work, done, () -> {});
  }

  /** {@code refused}: runs when the pool does not take {@code work}, which then never runs. */
  private void local(EventExecutor loop, Supplier<ReplicaReply> work, Consumer<ReplicaReply> done, Runnable refused) {
    if (pool == null) {
      done.accept(work.get());
      return;
    }
    boolean accepted = pool.trySubmit(() -> {
      ReplicaReply reply = work.get();
      try {
        loop.execute(() -> done.accept(reply));
      } catch (RejectedExecutionException e) {
        // The event loop is gone (a forced shutdown): so is the request.
      }
    });
    if (!accepted) {
      refused.run();
      done.accept(new ReplicaReply.Failed(self.id() + " is overloaded (" + pool.queued() + " storage calls queued)"));
    }
  }

  private void remote(
      EventExecutor loop, NodeAddress replica, LongFunction<PeerMessage.Request> request,
      Function<PeerMessage.Answer, ReplicaReply> parse, Consumer<ReplicaReply> done) {
    Future<PeerMessage.Answer> answer = client.send(loop, replica, request);
    answer.addListener(f -> { // on loop
      if (!f.isSuccess()) {
        done.accept(new ReplicaReply.Failed(Reasons.oneLine(String.valueOf(f.cause().getMessage()))));
        return;
      }
      hints.replicaAnswered(replica); // it is up: its hints need not wait for a back-off to end
      done.accept(parse.apply(answer.getNow()));
    });
  }

  private static ReplicaReply readReply(byte[] key, EntityResult result) {
    return switch (result.outcome()) {
      case FOUND -> new ReplicaReply.Read(new Entry(key, result.version(), result.value(), result.expiresAtMillis()));
      case NOT_FOUND -> new ReplicaReply.Read(result.isTombstone() ? Entry.tombstone(key, result.version()) : null);
      default -> new ReplicaReply.Failed(result.requireReason());
    };
  }

  private ReplicaReply writeReply(EntityResult result) {
    return switch (result.outcome()) {
      case STORED, DELETED -> ReplicaReply.Stored.INSTANCE;
      default -> new ReplicaReply.Failed(self.id() + ": " + result.reason());
    };
  }

  private static ReplicaReply readAnswer(NodeAddress replica, byte[] key, PeerMessage.Answer answer) {
    return switch (answer) {
      case PeerMessage.Value value ->
          new ReplicaReply.Read(new Entry(key, value.version(), bytesOf(value.value()), value.expiresAtMillis()));
      case PeerMessage.Tombstone tombstone -> new ReplicaReply.Read(Entry.tombstone(key, tombstone.version()));
      case PeerMessage.Absent ignored -> new ReplicaReply.Read(null);
      default -> failure(replica, answer, "a read");
    };
  }

  private static ReplicaReply writeAnswer(NodeAddress replica, PeerMessage.Answer answer) {
    return answer instanceof PeerMessage.Stored ? ReplicaReply.Stored.INSTANCE : failure(replica, answer, "a write");
  }

  // A decoded value is an unpooled heap buffer over an array of its own: taken as is.
  private static byte[] bytesOf(ByteBuf value) {
    try {
      return ByteBufUtil.getBytes(value, value.readerIndex(), value.readableBytes(), false);
    } finally {
      value.release();
    }
  }

  private static ReplicaReply failure(NodeAddress replica, PeerMessage.Answer answer, String what) {
    if (answer instanceof PeerMessage.Failed failed) {
      String reason = Reasons.oneLine(failed.reason());
      if (reason.length() > MAX_QUOTED_CHARS) reason = reason.substring(0, MAX_QUOTED_CHARS) + "...";
      String said = replica.id() + " failed (code " + failed.code() + "): " + reason;
      return failed.code() == PeerMessage.Failed.TOO_FAR_AHEAD ? new ReplicaReply.TooFarAhead(said) : new ReplicaReply.Failed(said);
    }
    if (answer instanceof PeerMessage.ScanData data) data.data().release();
    return new ReplicaReply.Failed(replica.id() + " answered " + what + " with a frame of type 0x" + Integer.toHexString(answer.type()));
  }
}
