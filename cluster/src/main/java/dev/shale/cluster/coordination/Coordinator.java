package dev.shale.cluster.coordination;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.storage.Entry;
import dev.shale.storage.Versions;
import dev.shale.storage.HybridClock;
import dev.shale.storage.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Coordinates a client's request over the replicas of its key: the first {@code from} nodes of
 * the key's preference list, and while a node change is pending also the key's new replicas for
 * writes ({@link ReplicaPlacement} says which), reached in parallel through {@link Replicas}. A
 * request is decided as soon as {@code ack} replicas answered (of each replica set, for a write
 * while a change is pending) or it is known they cannot ({@link Tally}), without waiting for the rest; the replicas still out finish in the background: their
 * answers feed read repair, their failures become hints ({@link MissedWrites}; a peer's only,
 * never this node's own).
 *
 * <p>Versions: one hybrid logical clock per node, the engine's. A write is stamped here with
 * {@code clock.next()}, and every version a replica returns is observed, so a write this node
 * coordinates after it has seen a version is newer than it, whatever the wall clocks say (a
 * version further ahead of the wall clock than {@link HybridClock#MAX_AHEAD_MILLIS} is not
 * followed: no replica stores one either).
 *
 * <p>A request that is decided short of {@code ack} ends with a {@link Outcome#shortfall} for a
 * 504: "2 of 3 replicas needed, 1 answered: " and each failed replica's reason, naming it.
 *
 * <p>Thread safe: the state of each request lives in its {@link ReplicatedRead} or {@link
 * ReplicatedWrite}, confined to the thread of the {@code loop} given (every callback runs there).
 */
public final class Coordinator {
  private final ReplicaPlacement placement;
  private final Replicas replicas;
  private final HybridClock clock;
  private final MissedWrites missed;
  private final ReplicationStats stats;
  private final long readSpeculationMillis;

  /**
   * A coordinator over a fixed placement.
   *
   * @param readSpeculationMillis how long a read waits for the {@code ack} replicas it asked
   *     before it asks the others too; 0: it asks every replica at once
   */
  public Coordinator(Placement placement, Replicas replicas, HybridClock clock, MissedWrites missed, ReplicationStats stats,
      long readSpeculationMillis) {
    this((ReplicaPlacement) placement::preferenceList, replicas, clock, missed, stats, readSpeculationMillis);
  }

  /** A coordinator that asks {@code placement} for every request's replicas (the live cluster map). */
  public Coordinator(ReplicaPlacement placement, Replicas replicas, HybridClock clock, MissedWrites missed, ReplicationStats stats,
      long readSpeculationMillis) {
    if (readSpeculationMillis < 0) throw new IllegalArgumentException("readSpeculationMillis must be >= 0: " + readSpeculationMillis);
    this.readSpeculationMillis = readSpeculationMillis;
    this.placement = placement;
    this.replicas = replicas;
    this.clock = clock;
    this.missed = missed;
    this.stats = stats;
  }

  /** Whether {@code key}'s replicas for {@code consistency} are this node alone (then the engine serves it directly). */
  public boolean isLocalOnly(byte[] key, Consistency consistency) {
    return consistency.from() == 1 && placement.writeReplicas(key, 1).nodes().equals(List.of(replicas.self()));
  }

  /**
   * Reads {@code key} from its replicas; {@code done} runs once, on {@code loop}, when the read is
   * decided, with the newest record among the answers so far; and {@code allIn} once, on {@code
   * loop}, after {@code done}, once every replica asked answered or failed and every read repair
   * was answered. It asks {@code ack} replicas, this node first when it is one, and more only when
   * one fails or the read is undecided after the speculation delay ({@link ReplicatedRead}).
   *
   * <p>What the read holds meanwhile: one record's value, the newest so far, which read repair
   * writes once all are in; of the other answers only whether they were that record. So from
   * {@code done} to {@code allIn} it keeps the outcome's newest record, until a late answer is
   * newer: then {@code newerLate} runs, on {@code loop}, with that answer, which the read keeps
   * instead. An answer not newer is dropped as it comes, and a replica still out holds nothing.
   * After {@code allIn} nothing is held.
   */
  public void read(Executor loop, byte[] key, Consistency consistency, Consumer<Outcome> done, Consumer<Entry> newerLate,
      Runnable allIn) {
    ReplicaPlacement.Reads reads = placement.reads(key, consistency.from());
    List<NodeAddress> replicasOfKey = reads.nodes();
    if (replicasOfKey.size() < consistency.from()) {
      done.accept(tooFew(replicasOfKey, consistency));
      allIn.run();
      return;
    }
    List<NodeAddress> targets = selfFirst(replicasOfKey);
    new ReplicatedRead(replicas, loop, key, targets, reads.mapVersion(), new Tally(consistency, replicasOfKey), clock, stats, readSpeculationMillis,
        done, newerLate, allIn).start();
  }

  /**
   * Writes {@code value} (null: a tombstone) to {@code key}'s replicas with a fresh version;
   * {@code done} runs once, on {@code loop}, when the request is decided, and {@code allIn} once,
   * on {@code loop}, after {@code done}, once every replica answered or failed (the replicas are
   * done with the value then; a hint of it may still be being written). The key and value arrays
   * must not change from now on.
   */
  public void write(Executor loop, byte[] key, byte @Nullable [] value, Consistency consistency, Consumer<Outcome> done,
      Runnable allIn) {
    write(loop, key, value, 0, consistency, done, allIn);
  }

  /**
   * {@link #write(Executor, byte[], byte[], Consistency, Consumer, Runnable)} of a value that
   * expires {@code ttlMillis} after its version's time ({@code ttlMillis} 0: never). The expiry is
   * stamped here, once, from this node's clock, so every replica (and every hint) holds the same
   * record (docs/design.md, "Expiring values").
   */
  public void write(Executor loop, byte[] key, byte @Nullable [] value, long ttlMillis, Consistency consistency,
      Consumer<Outcome> done, Runnable allIn) {
    if (ttlMillis < 0 || (value == null && ttlMillis != 0)) throw new IllegalArgumentException("ttlMillis " + ttlMillis);
    ReplicaPlacement.Writes writes = placement.writeReplicas(key, consistency.from());
    if (writes.before().size() < consistency.from()) {
      done.accept(tooFew(writes.before(), consistency));
      allIn.run();
      return;
    }
    long version;
    try {
      version = clock.next();
    } catch (StorageException e) { // the clock cannot advance: nothing is sent
      done.accept(new Outcome("the write was not sent: " + e.getMessage(), null));
      allIn.run();
      return;
    }
    long expiresAtMillis = ttlMillis == 0 ? Entry.NEVER : Versions.physicalMillis(version) + ttlMillis;
    new ReplicatedWrite(replicas, loop, key, value, version, expiresAtMillis, writes.nodes(), writes.mapVersion(), Tally.of(consistency, writes), missed,
        stats, done, allIn)
        .start();
  }

  /** The cluster shrank below {@code from} between the request's check and now: nothing is sent. */
  private static Outcome tooFew(List<NodeAddress> targets, Consistency consistency) {
    return new Outcome(consistency.ack() + " of " + consistency.from() + " replicas needed, but the cluster has "
        + targets.size() + " nodes to read from now: " + targets, null);
  }

  /** {@code targets} in their order, but this node first if it is one of them. */
  private List<NodeAddress> selfFirst(List<NodeAddress> targets) {
    NodeAddress self = replicas.self();
    int at = targets.indexOf(self);
    if (at <= 0) return targets;
    List<NodeAddress> ordered = new ArrayList<>(targets.size());
    ordered.add(self);
    for (NodeAddress target : targets) if (!target.equals(self)) ordered.add(target);
    return ordered;
  }

  /**
   * How a coordinated request ended.
   *
   * @param shortfall null when {@code ack} replicas answered; else what was asked and got (504)
   * @param newest of a read that succeeded: the newest record among the answers, null if none had one
   */
  public record Outcome(@Nullable String shortfall, @Nullable Entry newest) {}
}
