package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PlacementTest {
  private static final int KEYS = 200_000;

  @Test
  void theSameKeyAlwaysHasTheSameOwner() {
    Placement a = Nodes.placement(Nodes.loopback(5));
    Placement b = Nodes.placement(Nodes.loopback(5));
    for (int i = 0; i < 1000; i++) {
      byte[] key = key(i);
      assertThat(a.owner(key)).isEqualTo(b.owner(key)).isEqualTo(a.owner(key.clone()));
    }
  }

  @Test
  void theOrderOfTheListAndWhichNodeAsksDoNotMatter() {
    List<NodeAddress> nodes = Nodes.loopback(7);
    List<NodeAddress> shuffled = new ArrayList<>(nodes);
    Collections.shuffle(shuffled, new Random(TestSeed.forTest("PlacementTest.order")));
    Placement a = new Placement(new Topology(nodes, nodes.get(0)));
    Placement b = new Placement(new Topology(shuffled, nodes.get(3)));
    for (int i = 0; i < 1000; i++) {
      assertThat(b.preferenceList(key(i), 7)).isEqualTo(a.preferenceList(key(i), 7));
    }
  }

  @Test
  void aShorterPreferenceListIsAPrefixOfALongerOne() {
    Placement placement = Nodes.placement(Nodes.loopback(6));
    for (int i = 0; i < 1000; i++) {
      List<NodeAddress> all = placement.preferenceList(key(i), 6);
      assertThat(all).doesNotHaveDuplicates().hasSize(6);
      assertThat(all.getFirst()).isEqualTo(placement.owner(key(i)));
      for (int from = 1; from <= 6; from++) {
        assertThat(placement.preferenceList(key(i), from)).isEqualTo(all.subList(0, from));
      }
    }
  }

  @Test
  void fromOutsideTheClusterIsRefused() {
    Placement placement = Nodes.placement(Nodes.loopback(3));
    assertThatThrownBy(() -> placement.preferenceList(key(1), 0)).hasMessageContaining("[1, 3]");
    assertThatThrownBy(() -> placement.preferenceList(key(1), 4)).hasMessageContaining("[1, 3]");
  }

  @Test
  void keysSpreadEvenly() {
    for (int n : new int[] {3, 5, 10}) {
      Map<NodeAddress, Integer> counts = new HashMap<>();
      Placement placement = Nodes.placement(Nodes.loopback(n));
      for (int i = 0; i < KEYS; i++) counts.merge(placement.owner(key(i)), 1, Integer::sum);
      double mean = (double) KEYS / n;
      assertThat(counts).hasSize(n);
      // A uniform hash puts each node within a few standard deviations (under 1%) of the mean.
      counts.forEach((node, count) ->
          assertThat(Math.abs(count - mean) / mean).as("%d nodes: share of %s", n, node).isLessThan(0.03));
    }
  }

  @Test
  void addingANodeMovesAboutOneNthOfTheKeysAndOnlyToIt() {
    List<NodeAddress> four = Nodes.loopback(4);
    List<NodeAddress> five = Nodes.loopback(5);
    Placement before = Nodes.placement(four);
    Placement after = Nodes.placement(five);
    int moved = 0;
    for (int i = 0; i < KEYS; i++) {
      NodeAddress was = before.owner(key(i));
      NodeAddress is = after.owner(key(i));
      if (!was.equals(is)) {
        moved++;
        assertThat(is).as("a moved key goes to the new node").isEqualTo(five.getLast());
      }
    }
    assertThat((double) moved / KEYS).isBetween(0.19, 0.21);
  }

  @Test
  void randomKeysOfAnyLengthAreServedByTheNodes() {
    Random random = new Random(TestSeed.forTest("PlacementTest.random"));
    List<NodeAddress> nodes = Nodes.loopback(3);
    Placement placement = Nodes.placement(nodes);
    for (int i = 0; i < 10_000; i++) {
      byte[] key = new byte[random.nextInt(64)];
      random.nextBytes(key);
      assertThat(nodes).contains(placement.owner(key));
    }
  }

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }
}
