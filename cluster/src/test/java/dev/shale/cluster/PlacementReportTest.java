package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The measurement behind the choice of rendezvous hashing (docs/design.md, "Cluster"): for 3, 5
 * and 10 nodes and 1M keys, the keys per node (largest and smallest against the mean) and the
 * share of keys that move when one node is added, for rendezvous hashing and for a consistent
 * hash ring with 64, 256 virtual nodes per node. Prints a table; asserts rendezvous's bounds.
 *
 * <p>Run: {@code mvn -B -pl cluster -am test -Dtest=PlacementReportTest -Dsurefire.failIfNoSpecifiedTests=false},
 * the table is in cluster/target/surefire-reports/dev.shale.cluster.PlacementReportTest-output.txt.
 */
class PlacementReportTest {
  private static final int KEYS = 1_000_000;

  @Test
  void printBalanceAndMovement() {
    System.out.println("| placement | nodes | max/mean | min/mean | moved on +1 node | 1/(N+1) |");
    System.out.println("| --- | --- | --- | --- | --- | --- |");
    for (int n : new int[] {3, 5, 10}) {
      Result rendezvous = measure(n, nodes -> Nodes.placement(nodes)::owner);
      print("rendezvous", n, rendezvous);
      assertThat(rendezvous.maxOverMean()).isLessThan(1.01);
      assertThat(rendezvous.minOverMean()).isGreaterThan(0.99);
      assertThat(rendezvous.moved()).isBetween(0.95 / (n + 1), 1.05 / (n + 1));
      for (int vnodes : new int[] {64, 256}) {
        print("ring, " + vnodes + " vnodes", n, measure(n, nodes -> new Ring(nodes, vnodes)::owner));
      }
    }
  }

  private record Result(double maxOverMean, double minOverMean, double moved) {}

  private static Result measure(int n, Function<List<NodeAddress>, Function<byte[], NodeAddress>> placementOf) {
    Function<byte[], NodeAddress> before = placementOf.apply(Nodes.loopback(n));
    Function<byte[], NodeAddress> after = placementOf.apply(Nodes.loopback(n + 1));
    Map<NodeAddress, Integer> counts = new java.util.HashMap<>();
    int moved = 0;
    for (int i = 0; i < KEYS; i++) {
      byte[] key = ("user:" + i).getBytes(StandardCharsets.UTF_8);
      NodeAddress owner = before.apply(key);
      counts.merge(owner, 1, Integer::sum);
      if (!owner.equals(after.apply(key))) moved++;
    }
    double mean = (double) KEYS / n;
    int max = counts.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    int min = counts.size() < n ? 0 : counts.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
    return new Result(max / mean, min / mean, (double) moved / KEYS);
  }

  private static void print(String name, int n, Result r) {
    System.out.printf("| %s | %d | %.4f | %.4f | %.4f | %.4f |%n",
        name, n, r.maxOverMean(), r.minOverMean(), r.moved(), 1.0 / (n + 1));
  }

  /** Consistent hashing with virtual nodes, for comparison only. */
  private static final class Ring {
    private final TreeMap<Long, NodeAddress> points = new TreeMap<>();

    Ring(List<NodeAddress> nodes, int vnodes) {
      for (NodeAddress node : nodes) {
        for (int v = 0; v < vnodes; v++) {
          points.put(XxHash64.hash((node.id() + "#" + v).getBytes(StandardCharsets.UTF_8), 0), node);
        }
      }
    }

    NodeAddress owner(byte[] key) {
      Map.Entry<Long, NodeAddress> e = points.ceilingEntry(XxHash64.hash(key, 0));
      return (e == null ? points.firstEntry() : e).getValue();
    }
  }
}
