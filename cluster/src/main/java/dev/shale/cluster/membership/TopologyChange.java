package dev.shale.cluster.membership;

import dev.shale.cluster.NodeAddress;
import java.util.List;

/**
 * A change of the cluster map, as appended to the Raft log. Every member applies the same
 * changes in the same order ({@link ClusterMap#apply}), so every member sees the same maps.
 * Stored as one line of text (docs/format.md, "Cluster map"; {@link TopologyChangeCodec}).
 */
public sealed interface TopologyChange {
  /** The first change of a new cluster: its members, all normal (a later bootstrap is refused). */
  record Bootstrap(List<Member> members, int replicationFactor) implements TopologyChange {
    public Bootstrap {
      members = List.copyOf(members);
    }
  }

  /** A node asks to join: it becomes a member in state joining. */
  record Join(NodeAddress address, String raftAddress) implements TopologyChange {}

  /** A joining member has its copies: it becomes normal. */
  record MarkNormal(NodeAddress address) implements TopologyChange {}

  /** A normal member starts leaving. */
  record MarkLeaving(NodeAddress address) implements TopologyChange {}

  /**
   * A member that is down starts leaving ({@code nodes remove --dead}): no node pulls from it,
   * its copies are rebuilt from the other replicas. Of a member leaving already, marks it dead.
   */
  record MarkDead(NodeAddress address) implements TopologyChange {}

  /** A member is gone from the map (after leaving; a dead one at once where nothing moves data). */
  record Remove(NodeAddress address) implements TopologyChange {}

  /** What the data movement reports of a member (opaque to the map). */
  record Progress(NodeAddress address, String progress) implements TopologyChange {}
}
