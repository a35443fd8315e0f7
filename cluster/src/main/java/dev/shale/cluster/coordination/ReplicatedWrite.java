package dev.shale.cluster.coordination;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Keys;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One write (a value or a tombstone, with the version the coordinator stamped) over a key's
 * replicas: succeeds once {@code ack} replicas stored it (of each replica set while a node change
 * is pending, {@link Tally}); a peer replica that could not take it
 * (not delivered, timed out, refused) gets a hint ({@link MissedWrites}), also after the client
 * has its answer.
 *
 * <p>This node's own replica gets no hint when its engine fails: the hint would sit on the same
 * disk, and the client sees the failure counted against {@code ack}.
 *
 * <p>Confined to the request's thread ({@code loop}).
 */
final class ReplicatedWrite {
  private static final System.Logger LOG = System.getLogger(ReplicatedWrite.class.getName());

  private final Replicas replicas;
  private final Executor loop;
  private final byte[] key;
  private final byte @Nullable [] value; // null: a tombstone
  private final long version;
  private final long expiresAtMillis;
  private final List<NodeAddress> targets;
  private final long mapVersion; // of the map that named targets: every call to them carries it
  private final Tally tally;
  private final MissedWrites missed;
  private final ReplicationStats stats;
  private final Consumer<Coordinator.Outcome> done;
  private final Runnable allIn;
  private boolean decided;

  ReplicatedWrite(Replicas replicas, Executor loop, byte[] key, byte @Nullable [] value, long version,
      long expiresAtMillis, List<NodeAddress> targets, long mapVersion, Tally tally, MissedWrites missed, ReplicationStats stats,
      Consumer<Coordinator.Outcome> done, Runnable allIn) {
    this.replicas = replicas;
    this.loop = loop;
    this.key = key;
    this.value = value;
    this.version = version;
    this.expiresAtMillis = expiresAtMillis;
    this.targets = targets;
    this.mapVersion = mapVersion;
    this.tally = tally;
    this.missed = missed;
    this.stats = stats;
    this.done = done;
    this.allIn = allIn;
  }

  void start() {
    for (NodeAddress replica : targets) {
      replicas.write(loop, replica, key, value, version, expiresAtMillis, mapVersion, reply -> onReply(replica, reply));
    }
  }

  private void onReply(NodeAddress replica, ReplicaReply reply) {
    switch (reply) {
      case ReplicaReply.Stored ignored -> tally.answered(replica);
      case ReplicaReply.Failed(String reason) -> {
        tally.failed(replica, reason);
        if (!replica.equals(replicas.self())) hint(replica, reason);
      }
      case ReplicaReply.TooFarAhead(String reason) -> { // it never will store it: no hint
        tally.failed(replica, reason);
        stats.hintDroppedTooFarAhead();
        LOG.log(Level.WARNING, () -> "no hint kept for " + replica.id() + " of id=" + Keys.toDisplay(key) + ": " + reason);
      }
      case ReplicaReply.Read ignored -> throw new IllegalStateException("a write answered as a read by " + replica);
    }
    if (!decided && tally.decided()) {
      decided = true;
      done.accept(new Coordinator.Outcome(tally.reached() ? null : tally.shortfall(), null));
    }
    if (tally.allIn()) allIn.run();
  }

  /** Keeps the write for {@code replica}, off the request's thread: the hint store writes to disk. */
  private void hint(NodeAddress replica, String reason) {
    boolean started = replicas.background(() -> {
      boolean kept;
      try {
        kept = missed.missed(replica, key, value, version, expiresAtMillis);
      } catch (RuntimeException e) {
        LOG.log(Level.ERROR, () -> "cannot keep a hint for " + replica.id() + " of id=" + Keys.toDisplay(key) + ": " + e);
        kept = false;
      }
      counted(kept, replica, reason);
    });
    if (!started) counted(false, replica, reason + "; the storage pool is full");
  }

  private void counted(boolean kept, NodeAddress replica, String reason) {
    if (kept) {
      stats.hintStored();
      LOG.log(Level.DEBUG, () -> "kept a hint for " + replica.id() + " (" + reason + ")");
    } else {
      stats.hintRefused();
      LOG.log(Level.DEBUG, () -> "no hint kept for " + replica.id() + " (" + reason + ")");
    }
  }
}
