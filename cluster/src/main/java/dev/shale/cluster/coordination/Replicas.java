package dev.shale.cluster.coordination;

import dev.shale.cluster.NodeAddress;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's one door to the replicas of a key: reads and writes one key on one replica
 * (this node's engine, or a peer over the network) and hands what it answered to a callback. The
 * server implements it over its engine and its peer messaging; tests over a simulated network.
 *
 * <p>Contract of {@link #read} and {@link #write}: they never block (no thread waits for a peer);
 * {@code done} runs exactly once, on {@code loop} (the thread the request is confined to), with
 * the replica's answer or a {@link ReplicaReply.Failed} saying why there is none (not delivered,
 * timed out, refused, overloaded); a reply that never comes ends as a failure after the replica
 * timeout. {@code done} may run before the call returns when the answer is known at once (on
 * {@code loop}: the caller is on it). Only when {@code loop} is gone (a forced shutdown) may
 * {@code done} not run: the request is gone with it.
 *
 * <p>Thread safe.
 */
public interface Replicas {
  /** This node: its replica is its own engine, and it gets no hints. */
  NodeAddress self();

  /**
   * Reads {@code key}'s newest record on {@code replica}; {@code done} gets a {@link ReplicaReply.Read} or a failure.
   * {@code mapVersion}: of the cluster map that named the replica ({@link ReplicaPlacement.Reads#mapVersion});
   * a replica whose placement is newer refuses the request.
   */
  void read(Executor loop, NodeAddress replica, byte[] key, long mapVersion, Consumer<ReplicaReply> done);

  /**
   * Writes {@code value} (null: a tombstone) with {@code version} to {@code replica}; {@code done}
   * gets {@link ReplicaReply.Stored} (also when the replica already held a newer record) or a
   * failure. The value array must not change from now on. {@code mapVersion}: as for {@link #read}.
   */
  void write(Executor loop, NodeAddress replica, byte[] key, byte @Nullable [] value, long version,
      long expiresAtMillis, long mapVersion, Consumer<ReplicaReply> done);

  /** Runs {@code task} on {@code loop} {@code delayMillis} from now (a timer: it never blocks). */
  void schedule(Executor loop, long delayMillis, Runnable task);

  /**
   * Runs {@code diskTask} (a disk write, such as keeping a hint) off the request's thread, or
   * inline where there is no other; false when it was refused (the threads for it are full).
   */
  boolean background(Runnable diskTask);
}
