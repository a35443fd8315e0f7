package dev.shale.cluster.coordination;

import dev.shale.cluster.HintStore;
import dev.shale.cluster.HintedHandoff;
import dev.shale.cluster.NodeAddress;
import org.jspecify.annotations.Nullable;

/**
 * The missed writes of a node with peers: kept in its {@link HintStore}, delivered by its {@link
 * HintedHandoff}, whose back-off for a replica ends as soon as that replica is seen answering.
 *
 * <p>The handoff comes after this object (it sends through the started server's peer messaging,
 * and the server needs this object to start), through {@link #deliverWith}; until then a replica
 * seen answering has no back-off to cut short.
 *
 * <p>Thread safe.
 */
public final class HintedWrites implements MissedWrites {
  private final HintStore store;
  private volatile @Nullable HintedHandoff handoff; // null until delivery starts

  public HintedWrites(HintStore store) {
    this.store = store;
  }

  /** Starts {@code handoff}, the delivery of this object's store, and signals it every replica seen answering. Once. */
  public void deliverWith(HintedHandoff handoff) {
    signal(handoff);
    handoff.start();
  }

  /**
   * Signals {@code handoff}, whose delivery its caller drives ({@link HintedHandoff#startDriven}),
   * every replica seen answering. Once, instead of {@link #deliverWith}.
   */
  public void signal(HintedHandoff handoff) {
    if (this.handoff != null) throw new IllegalStateException("hint delivery already started");
    this.handoff = handoff;
  }

  @Override
  public boolean missed(NodeAddress target, byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {
    return store.add(target, key, value, version, expiresAtMillis);
  }

  @Override
  public void replicaAnswered(NodeAddress replica) {
    HintedHandoff h = handoff;
    if (h != null) h.onReplicaUp(replica);
  }

  @Override
  public long pending() {
    return store.pendingHints();
  }

  @Override
  public long pendingBytes() {
    return store.pendingBytes();
  }
}
