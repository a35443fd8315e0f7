package dev.shale.server.coordination;

import dev.shale.cluster.Hint;
import dev.shale.cluster.HintNotDelivered;
import dev.shale.cluster.HintSender;
import dev.shale.cluster.coordination.ReplicaReply;
import dev.shale.cluster.coordination.ReplicationStats;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * How the hinted handoff reaches a replica from this node: a hint is written to its target through
 * the {@link ReplicaCalls}, as the replica protocol's write of the key's value (or tombstone) with
 * its original version, answered on one of the server's event loops. Never blocks.
 *
 * <p>Thread safe.
 */
public final class HintDeliveries implements HintSender {
  private final ReplicaCalls calls;
  private final Supplier<EventExecutor> loops; // the next of the server's event loops
  private final ReplicationStats stats;
  private final BooleanSupplier closed;

  public HintDeliveries(ReplicaCalls calls, Supplier<EventExecutor> loops, ReplicationStats stats, BooleanSupplier closed) {
    this.calls = calls;
    this.loops = loops;
    this.stats = stats;
    this.closed = closed;
  }

  /**
   * Completes with true once the replica stored the hint, and exceptionally with {@link
   * HintNotDelivered} saying why when it did not (down, timed out, refused, or this node is
   * shutting down): delivery tries again later.
   */
  @Override
  public CompletionStage<Boolean> deliver(Hint hint) {
    CompletableFuture<Boolean> stored = new CompletableFuture<>();
    if (closed.getAsBoolean()) {
      stored.completeExceptionally(new HintNotDelivered("this node is shutting down"));
      return stored;
    }
    calls.write(loops.get(), hint.target(), hint.key(), hint.value(), hint.version(), hint.expiresAtMillis(), calls.mapVersion(), reply -> {
      switch (reply) {
        case ReplicaReply.Stored ignored -> {
          stats.hintDelivered();
          stored.complete(true);
        }
        case ReplicaReply.Failed(String reason) -> stored.completeExceptionally(new HintNotDelivered(reason));
        case ReplicaReply.TooFarAhead(String reason) -> {
          stats.hintDroppedTooFarAhead();
          stored.completeExceptionally(HintNotDelivered.never(reason));
        }
        case ReplicaReply.Read ignored -> stored.completeExceptionally(
            new IllegalStateException("a write was answered as a read"));
      }
    });
    return stored;
  }
}
