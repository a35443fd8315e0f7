package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;

/**
 * What the handoff tells the membership: a node finished receiving every range it gains in the
 * pending change, so the membership may mark it {@code normal} and commit the change.
 *
 * <p>Called from the handoff's own thread; implementations must not block it for long.
 */
@FunctionalInterface
public interface ChangeProgress {
  /** {@code node} holds every range it gains in the pending change, streamed and written locally. */
  void received(NodeAddress node);
}
