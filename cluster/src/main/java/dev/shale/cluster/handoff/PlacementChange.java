package dev.shale.cluster.handoff;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A change of the cluster's nodes, seen as the placement before it and after it: which keys
 * move, and from which nodes to which. A key's replicas are the first {@code replicas} nodes of
 * its preference list (fewer when a side has fewer nodes).
 *
 * <p>The ranges: a key falls in the {@link MovedRange} named by its replica sets before and after
 * ({@link #rangeOf}). {@link #ranges} lists every range some key could fall in, from the node
 * lists alone, so a node knows what it will receive before it sees a key. Which pairs of sets
 * occur: a key's weights order every node of both sides; its replicas on each side are the top of
 * that side in that order. So the two sets' parts among the nodes of both sides are both tops of
 * one order of those nodes: one contains the other. Any pair of sets of the right sizes that
 * meets this occurs for some order (the design notes, "Handoff", give the order), so these pairs
 * are exactly the ranges.
 *
 * <p>Cost: {@link #ranges} enumerates every pair of replica sets, C(n, r)² for n nodes, which
 * is fine for the tens of nodes Shale clusters have, not for hundreds.
 *
 * <p>Immutable and thread safe.
 *
 * @param before the placement in force until the change is committed
 * @param after the placement once it is
 * @param replicas the replication factor: copies of each key (at least 1)
 * @param mapVersion the version of the cluster map that started the change: a source serves a pull
 *     once it has applied it (the map fence, docs/design.md "Handoff"); 0 for a change made by
 *     hand on a fixed cluster
 * @param down nodes of {@code before} that are down for good (a member removed as dead): nothing
 *     is pulled from them; the ranges they replicated come from their other replicas
 */
public record PlacementChange(Placement before, Placement after, int replicas, long mapVersion, Set<NodeAddress> down) {
  public PlacementChange {
    if (replicas < 1) throw new IllegalArgumentException("replicas must be >= 1: " + replicas);
    if (mapVersion < 0) throw new IllegalArgumentException("mapVersion must be >= 0: " + mapVersion);
    down = Set.copyOf(down);
    if (!before.topology().nodes().containsAll(down)) {
      throw new IllegalArgumentException("down nodes " + down + " are not all nodes before the change");
    }
  }

  /** A change whose nodes before it are all up. */
  public PlacementChange(Placement before, Placement after, int replicas, long mapVersion) {
    this(before, after, replicas, mapVersion, Set.of());
  }

  /** A change made by hand (map version 0: on a fixed cluster). */
  public PlacementChange(Placement before, Placement after, int replicas) {
    this(before, after, replicas, 0);
  }

  /** The change from a cluster of {@code before} to one of {@code after} (neither empty), made by hand. */
  public static PlacementChange between(List<NodeAddress> before, List<NodeAddress> after, int replicas) {
    return between(before, after, replicas, 0);
  }

  /** The change from a cluster of {@code before} to one of {@code after} (neither empty) that map {@code mapVersion} started. */
  public static PlacementChange between(List<NodeAddress> before, List<NodeAddress> after, int replicas, long mapVersion) {
    return new PlacementChange(placementOf(before), placementOf(after), replicas, mapVersion);
  }

  /** This change, with {@code nodes} (of the nodes before it) down for good. */
  public PlacementChange withDown(Collection<NodeAddress> nodes) {
    return new PlacementChange(before, after, replicas, mapVersion, Set.copyOf(nodes));
  }

  /** {@code key}'s replicas before the change, most preferred first. */
  public List<NodeAddress> replicasBefore(byte[] key) {
    return before.preferenceList(key, replicasOn(before));
  }

  /** {@code key}'s replicas after the change, most preferred first. */
  public List<NodeAddress> replicasAfter(byte[] key) {
    return after.preferenceList(key, replicasOn(after));
  }

  /** The range {@code key} falls in. */
  public MovedRange rangeOf(byte[] key) {
    return new MovedRange(Set.copyOf(replicasBefore(key)), Set.copyOf(replicasAfter(key)));
  }

  /** Every range some key could fall in that moves (gains or loses a node). */
  public List<MovedRange> ranges() {
    List<NodeAddress> beforeNodes = before.topology().nodes();
    List<NodeAddress> afterNodes = after.topology().nodes();
    Set<NodeAddress> common = new HashSet<>(beforeNodes);
    common.retainAll(afterNodes);
    List<Set<NodeAddress>> afterSets = subsets(afterNodes, replicasOn(after));
    List<MovedRange> ranges = new ArrayList<>();
    for (Set<NodeAddress> from : subsets(beforeNodes, replicasOn(before))) {
      for (Set<NodeAddress> to : afterSets) {
        if (!from.equals(to) && nested(intersection(from, common), intersection(to, common))) {
          ranges.add(new MovedRange(from, to));
        }
      }
    }
    return List.copyOf(ranges);
  }

  /** The ranges {@code node} gains. */
  public List<MovedRange> rangesGainedBy(NodeAddress node) {
    return ranges().stream().filter(r -> r.gaining().contains(node)).toList();
  }

  /** The ranges {@code node} loses. */
  public List<MovedRange> rangesLostBy(NodeAddress node) {
    return ranges().stream().filter(r -> r.losing().contains(node)).toList();
  }

  /**
   * The pulls that bring {@code receiver} every key it gains (see {@link PullUnit} for why each
   * comes from where it does): one per node it replaces, then one per replica set whose ranges
   * only gain a copy; in a stable order.
   */
  public List<PullUnit> pullsOf(NodeAddress receiver) {
    Map<NodeAddress, Set<MovedRange>> byReplaced = new TreeMap<>(Comparator.comparing(NodeAddress::id));
    Map<String, Set<MovedRange>> byBefore = new TreeMap<>(); // by the replica set's ids
    for (MovedRange range : rangesGainedBy(receiver)) {
      Set<NodeAddress> losing = range.losing();
      if (losing.size() == 1) {
        byReplaced.computeIfAbsent(losing.iterator().next(), n -> new HashSet<>()).add(range);
      } else { // none lost (a copy is added); several only in a change of several nodes at once
        byBefore.computeIfAbsent(NodeIds.join(range.before()), n -> new HashSet<>()).add(range);
      }
    }
    List<PullUnit> pulls = new ArrayList<>();
    byReplaced.forEach((node, ranges) -> pulls.add(PullUnit.replacing(node, ranges)));
    byBefore.forEach((ids, ranges) -> pulls.add(PullUnit.addingTo(ranges.iterator().next().before(), ranges)));
    return List.copyOf(pulls);
  }

  /** A placement of {@code nodes}: which node is "self" does not matter to preference lists. */
  private static Placement placementOf(List<NodeAddress> nodes) {
    return new Placement(new Topology(nodes, nodes.getFirst()));
  }

  private int replicasOn(Placement placement) {
    return Math.min(replicas, placement.topology().size());
  }

  private static boolean nested(Set<NodeAddress> a, Set<NodeAddress> b) {
    return a.containsAll(b) || b.containsAll(a);
  }

  private static Set<NodeAddress> intersection(Set<NodeAddress> a, Set<NodeAddress> b) {
    Set<NodeAddress> both = new HashSet<>(a);
    both.retainAll(b);
    return both;
  }

  /** Every subset of {@code nodes} of {@code size} elements. */
  private static List<Set<NodeAddress>> subsets(List<NodeAddress> nodes, int size) {
    List<Set<NodeAddress>> subsets = new ArrayList<>();
    collect(nodes, size, 0, new ArrayList<>(), subsets);
    return subsets;
  }

  private static void collect(List<NodeAddress> nodes, int size, int next, List<NodeAddress> chosen, List<Set<NodeAddress>> out) {
    if (chosen.size() == size) {
      out.add(Set.copyOf(new LinkedHashSet<>(chosen)));
      return;
    }
    for (int i = next; i <= nodes.size() - (size - chosen.size()); i++) {
      chosen.add(nodes.get(i));
      collect(nodes, size, i + 1, chosen, out);
      chosen.removeLast();
    }
  }
}
