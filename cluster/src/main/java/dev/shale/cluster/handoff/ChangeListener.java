package dev.shale.cluster.handoff;

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
}
