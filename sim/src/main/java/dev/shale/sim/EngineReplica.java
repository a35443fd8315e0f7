package dev.shale.sim;

import dev.shale.cluster.coordination.ReplicaReply;
import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import org.jspecify.annotations.Nullable;

/**
 * A node's replica side as the simulation runs it: a peer's READ or WRITE of one key applied to
 * the node's engine, and the reply. The server's peer handler does more around the same engine
 * calls (the answer budget, the storage pool, the map fence, the value-size limit), none of which
 * a run exercises; the one refusal that matters to correctness is the engine's own, a version
 * beyond the skew bound ({@link Engine#write}), answered as the handler answers it.
 *
 * <p>{@code dropsWrites}: a planted defect for the checker's own test, a replica that acknowledges
 * writes and stores nothing.
 */
final class EngineReplica {
  private final String node;
  private final Engine engine;
  private final boolean dropsWrites;
  private final History history;

  EngineReplica(String node, Engine engine, boolean dropsWrites, History history) {
    this.node = node;
    this.history = history;
    this.engine = engine;
    this.dropsWrites = dropsWrites;
  }

  ReplicaReply read(byte[] key) {
    try {
      return new ReplicaReply.Read(engine.get(key));
    } catch (StorageException e) {
      return new ReplicaReply.Failed(node + ": " + e.getMessage());
    }
  }

  ReplicaReply write(byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    if (dropsWrites) {
      history.owed(key, version, node); // what it claims
      return ReplicaReply.Stored.INSTANCE;
    }
    try {
      engine.write(key, value, version, value == null ? Entry.NEVER : expiresAtMillis);
      history.owed(key, version, node); // the record is synced (SyncMode.ALWAYS): it survives a crash
      return ReplicaReply.Stored.INSTANCE;
    } catch (IllegalArgumentException e) { // beyond the skew bound: never stored, so never hinted
      return new ReplicaReply.TooFarAhead(node + ": " + e.getMessage());
    } catch (StorageException e) {
      return new ReplicaReply.Failed(node + ": " + e.getMessage());
    }
  }

  /** The newest record of {@code key}, for the checker. */
  @Nullable Entry newest(byte[] key) {
    return engine.get(key);
  }
}
