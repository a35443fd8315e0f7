package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import java.util.Set;

/**
 * Which keys one handoff stream carries: those of a {@link PlacementChange} whose range (replica
 * sets before and after) is one of {@code ranges}, each a range {@code receiver} gains. A source
 * applies it to its records as it streams them (the SCAN's handoff filter, docs/format.md
 * "Internode protocol").
 *
 * <p>Immutable and thread safe.
 *
 * @param change the change under way
 * @param receiver the node that pulls
 * @param ranges ranges of the change that {@code receiver} gains; not empty
 */
public record GainedKeys(PlacementChange change, NodeAddress receiver, Set<MovedRange> ranges) {
  public GainedKeys {
    ranges = Set.copyOf(ranges);
    if (ranges.isEmpty()) throw new IllegalArgumentException("a handoff stream needs at least one range");
    if (!change.after().topology().nodes().contains(receiver)) {
      throw new IllegalArgumentException(receiver + " is not a node after the change");
    }
    for (MovedRange range : ranges) {
      if (!range.gaining().contains(receiver)) throw new IllegalArgumentException(receiver + " does not gain range " + range);
    }
  }

  /** Whether {@code key} is one the stream carries. */
  public boolean contains(byte[] key) {
    return ranges.contains(change.rangeOf(key));
  }
}
