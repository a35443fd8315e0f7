package dev.shale.cluster.membership;

/**
 * Hears every change of the cluster map this node applies, in the log's order: the seam the data
 * movement (handoff) hooks into. Called on the thread that applies the Raft log: return quickly
 * (start work elsewhere), and never wait for another change to be applied from here.
 */
@FunctionalInterface
public interface TopologyListener {
  TopologyListener NONE = (before, after) -> {};

  /** {@code after} is the map that {@code before} became; the versions are increasing. */
  void onChange(ClusterMap before, ClusterMap after);
}
