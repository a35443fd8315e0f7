package dev.shale.server;

import dev.shale.cluster.NodeAddress;

/**
 * Where a coordinator puts a write that a replica of its {@code from} set could not take (not
 * delivered, timed out, or refused): the hint store, which delivers it once the replica is back.
 *
 * <p>Implementations are thread safe and do not block for long (a hint store appends to a
 * local file).
 */
@FunctionalInterface
public interface MissedWrites {
  /** Nowhere: a missed write is healed only by read repair. */
  MissedWrites NONE = (target, key, value, version) -> false;

  /**
   * Keeps {@code value} (null: a tombstone) with {@code version} for {@code target}; false when
   * it was refused (the store is full, say) and only read repair will heal the replica.
   */
  boolean missed(NodeAddress target, byte[] key, byte[] value, long version);
}
