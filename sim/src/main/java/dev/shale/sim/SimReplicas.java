package dev.shale.sim;

import dev.shale.cluster.Hint;
import dev.shale.cluster.HintNotDelivered;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.cluster.coordination.ReplicaPlacement;
import dev.shale.cluster.coordination.ReplicaReply;
import dev.shale.cluster.coordination.Replicas;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's {@link Replicas} on one life of a simulated node, in place of the server's
 * {@code ReplicaCalls}: this node's replica is its engine, answered at once; a peer's is reached
 * over the {@link SimNetwork}, a request one way and the reply the other, and a call no reply
 * ends within {@link #TIMEOUT_MILLIS} fails, as the peer transport's does. Also the node's
 * {@link dev.shale.cluster.HintSender}: a hint goes out as a replica write.
 */
final class SimReplicas implements Replicas {
  /** The replica timeout: what a call waits for a reply (the server's default peer timeout is of this order). */
  static final long TIMEOUT_MILLIS = 1_000;

  private final SimNode node;
  private final VirtualTime time;
  private final SimNetwork network;
  private final History history;
  private final EngineReplica own;
  private final MissedWrites missed;
  private final Executor loop; // this life's: hint deliveries end on it

  SimReplicas(SimNode node, Executor loop, VirtualTime time, SimNetwork network, History history, EngineReplica own,
      MissedWrites missed) {
    this.node = node;
    this.loop = loop;
    this.time = time;
    this.network = network;
    this.history = history;
    this.own = own;
    this.missed = missed;
  }

  @Override
  public NodeAddress self() {
    return node.address();
  }

  @Override
  public void read(Executor loop, NodeAddress replica, byte[] key, long mapVersion, Consumer<ReplicaReply> done) {
    call(loop, replica, "read " + text(key), r -> r.read(key), done);
  }

  @Override
  public void write(Executor loop, NodeAddress replica, byte[] key, byte @Nullable [] value, long version,
      long expiresAtMillis, long mapVersion, Consumer<ReplicaReply> done) {
    history.sent(key, version, value);
    call(loop, replica, "write " + text(key) + " v" + version, r -> r.write(key, value, version, expiresAtMillis), done);
  }

  @Override
  public void schedule(Executor loop, long delayMillis, Runnable task) {
    time.after(delayMillis, () -> loop.execute(task));
  }

  /** Inline, as the server runs it without a storage pool: the simulated disk never makes a caller wait. */
  @Override
  public boolean background(Runnable diskTask) {
    diskTask.run();
    return true;
  }

  /** Delivers {@code hint} as a replica write to its target (the hint delivery's sender). */
  CompletionStage<Boolean> deliver(Hint hint) {
    CompletableFuture<Boolean> delivered = new CompletableFuture<>();
    write(loop, hint.target(), hint.key(), hint.value(), hint.version(), hint.expiresAtMillis(), ReplicaPlacement.FIXED,
        reply -> {
          switch (reply) {
            case ReplicaReply.Stored ignored -> delivered.complete(true);
            case ReplicaReply.TooFarAhead far -> delivered.completeExceptionally(HintNotDelivered.never(far.reason()));
            case ReplicaReply.Failed failed -> delivered.completeExceptionally(new HintNotDelivered(failed.reason()));
            case ReplicaReply.Read ignored -> delivered.completeExceptionally(new HintNotDelivered("a read's answer to a write"));
          }
        });
    return delivered;
  }

  private void call(Executor loop, NodeAddress replica, String what, Function<EngineReplica, ReplicaReply> work,
      Consumer<ReplicaReply> done) {
    Call call = new Call(loop, done);
    if (replica.equals(node.address())) {
      call.end(work.apply(own));
      return;
    }
    time.after(TIMEOUT_MILLIS, () -> call.end(new ReplicaReply.Failed("no answer within " + TIMEOUT_MILLIS + " ms")));
    network.send(node.address(), replica, what, () -> node.peer(replica).serve(work, reply ->
        network.send(replica, node.address(), "reply to " + what + ": " + describe(reply), () -> {
          if (call.end(reply)) missed.replicaAnswered(replica);
        })));
  }

  private static String describe(ReplicaReply reply) {
    return switch (reply) {
      case ReplicaReply.Stored ignored -> "stored";
      case ReplicaReply.Read read -> read.entry() == null ? "none" : "v" + read.entry().version();
      case ReplicaReply.Failed failed -> "failed";
      case ReplicaReply.TooFarAhead ignored -> "too far ahead";
    };
  }

  static String text(byte[] key) {
    return new String(key, StandardCharsets.UTF_8);
  }

  /** One call to one replica: ends once, by a reply or by the timeout, whichever comes first. */
  private static final class Call {
    private final Executor loop;
    private final Consumer<ReplicaReply> done;
    private boolean ended;

    Call(Executor loop, Consumer<ReplicaReply> done) {
      this.loop = loop;
      this.done = done;
    }

    /** Whether this ended the call (false: it had ended already, the reply is dropped). */
    boolean end(ReplicaReply reply) {
      if (ended) return false;
      ended = true;
      loop.execute(() -> done.accept(reply));
      return true;
    }
  }
}
