package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * One pull of the keys a node gains in a change: which ranges, from which nodes, and the name its
 * progress is kept under (docs/format.md, "Handoff progress").
 *
 * <p>Where from, and why. In a change of one node every range the receiver gains either replaces
 * one node (it is in the replica set before and not after: in a join, the node the new one
 * displaces; in a leave, the leaving one) or only adds a copy. A range that replaces node L comes
 * from L itself: the receiver then holds what L held, so a write stored on {@code w} replicas
 * before the change is on {@code w} replicas after it, whatever {@code w} was (the map fence
 * keeps writes from landing on L after its scan passed their key). One pull per replaced node
 * covers all its ranges: L's store is read once. When L cannot be reached (it died), the pull
 * goes on from every other node that replicates those ranges, each from where L's stopped: the
 * union of their copies holds every write that reached any of them. A range that only adds a copy
 * keeps every copy it had, so any one node of its replica set will do.
 *
 * @param name the unit's name in the progress file and on status pages: {@code replacing:<id>} or
 *     the replica set's ids joined with commas
 * @param ranges the ranges it brings (their keys, and only theirs, are pulled)
 * @param replaced the node whose ranges these are, or null for a unit that only adds copies
 * @param sources where to pull from, in order: the replaced node, else the replica set by id
 */
public record PullUnit(String name, Set<MovedRange> ranges, @Nullable NodeAddress replaced, List<NodeAddress> sources) {
  static final String REPLACING = "replacing:";

  public PullUnit {
    ranges = Set.copyOf(ranges);
    sources = List.copyOf(sources);
    if (ranges.isEmpty() || sources.isEmpty()) throw new IllegalArgumentException("a pull has ranges and sources: " + name);
  }

  /** The unit that brings the ranges in which the receiver replaces {@code node}, all from it. */
  static PullUnit replacing(NodeAddress node, Set<MovedRange> ranges) {
    return new PullUnit(REPLACING + node.id(), ranges, node, List.of(node));
  }

  /** The unit that brings ranges of replica set {@code before} that only gain a copy, from any node of it. */
  static PullUnit addingTo(Set<NodeAddress> before, Set<MovedRange> ranges) {
    List<NodeAddress> byId = before.stream().sorted(Comparator.comparing(NodeAddress::id)).toList();
    return new PullUnit(NodeIds.join(before), ranges, null, byId);
  }

  /**
   * When the replaced node cannot be reached: every other node of the ranges' replica sets
   * before the change, by id. Each holds its own copies of part of the ranges; together, all.
   */
  public List<NodeAddress> otherReplicas() {
    Set<NodeAddress> others = new TreeSet<>(Comparator.comparing(NodeAddress::id));
    for (MovedRange range : ranges) others.addAll(range.before());
    if (replaced != null) others.remove(replaced);
    return List.copyOf(others);
  }

  /** The name of the part of a failed-over unit that comes from {@code other}. */
  String fromOther(NodeAddress other) {
    return name + "@" + other.id();
  }
}
