package dev.shale.cluster.coordination;

import dev.shale.cluster.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * Where a coordinator puts a write that a peer replica of its {@code from} set could not take (not
 * delivered, timed out, or refused): normally the hint store ({@link HintedWrites}), which delivers
 * it once the replica is back.
 *
 * <p>Implementations are thread safe. {@link #missed} may write to disk (the coordinator calls it
 * through {@link Replicas#background}); {@link #replicaAnswered} is called on a request's thread
 * for every answer of a peer and must be cheap.
 */
@FunctionalInterface
public interface MissedWrites {
  /** Nowhere: a missed write is healed only by read repair. */
  MissedWrites NONE = (target, key, value, version, expiresAtMillis) -> false;

  /**
   * Keeps {@code value} (null: a tombstone) with {@code version} for {@code target}; false when
   * it was refused (the store is full, say) and only read repair will heal the replica.
   */
  boolean missed(NodeAddress target, byte[] key, byte @Nullable [] value, long version, long expiresAtMillis);

  /** {@code replica} answered a request: hints for it may be worth delivering now. */
  default void replicaAnswered(NodeAddress replica) {}

  /** Writes kept and not yet delivered, all replicas together: a gauge for {@code /v0/status}. Cheap. */
  default long pending() {
    return 0;
  }

  /** The bytes of the {@link #pending} writes, as counted against the store's size limit. Cheap. */
  default long pendingBytes() {
    return 0;
  }
}
