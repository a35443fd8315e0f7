package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import java.util.List;

/**
 * What a node hears of a topology change, in the order changes are agreed: the seam
 * between the membership (which decides the changes) and the handoff (which moves the data).
 *
 * <p>A change goes through two calls: {@link #changeStarted} when the new node list is agreed but
 * the data is not yet where it belongs (the members that join are {@code joining}, those that
 * leave {@code leaving}), and {@link #changeCommitted} once the membership made the change final
 * (every receiver reported {@link ChangeProgress#received}). At most one change is pending at a
 * time: the membership serialises them.
 *
 * <p>Implementations return quickly: the work they start runs on threads of their own.
 */
public interface ChangeListener {
  /**
   * A change began: writes go to the replicas of both placements, reads stay on {@code before}'s,
   * and this node starts pulling the ranges it gains. Called again with the same change after a
   * restart while it is pending: the node resumes where it was.
   */
  void changeStarted(PlacementChange change);

  /**
   * The change is final: reads and writes follow {@code after} alone, and this node drops its
   * copies of the ranges it no longer replicates.
   */
  void changeCommitted(PlacementChange change);

  /**
   * No change is pending in the map this node takes up at its start, whose members are {@code
   * members}: a change this node was told of before it stopped, and did not hear the end of, ended
   * while it was down. If it ended with these very members, it is committed now, as if heard (the
   * copies this node lost in it are dropped); else, the map having moved on, nothing is done.
   */
  default void noChangePending(List<NodeAddress> members) {}
}
