package dev.shale.sim;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.coordination.MissedWrites;
import org.jspecify.annotations.Nullable;

/**
 * A node's {@link MissedWrites} (its hint store's), telling the {@link History} of every hint it
 * kept: the checker then expects that hint's record at its target once the hints drained.
 */
final class RecordedMissedWrites implements MissedWrites {
  private final MissedWrites hints;
  private final History history;

  RecordedMissedWrites(MissedWrites hints, History history) {
    this.hints = hints;
    this.history = history;
  }

  @Override
  public boolean missed(NodeAddress target, byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    boolean kept = hints.missed(target, key, value, version, expiresAtMillis);
    if (kept) history.owed(key, version, target.id());
    return kept;
  }

  @Override
  public void replicaAnswered(NodeAddress replica) {
    hints.replicaAnswered(replica);
  }

  @Override
  public long pending() {
    return hints.pending();
  }

  @Override
  public long pendingBytes() {
    return hints.pendingBytes();
  }
}
