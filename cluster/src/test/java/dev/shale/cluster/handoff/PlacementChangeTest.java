package dev.shale.cluster.handoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Nodes;
import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlacementChangeTest {
  private static final int KEYS = 100_000;

  @Test
  void everyKeysRangeGainsAndLosesWhatItsPreferenceListsDiffer() {
    Random random = new Random(TestSeed.forTest("PlacementChangeTest.ranges"));
    for (int round = 0; round < 12; round++) {
      PlacementChange change = randomChange(random);
      Set<MovedRange> ranges = new HashSet<>(change.ranges());
      Set<MovedRange> seen = new HashSet<>();
      for (int i = 0; i < KEYS; i++) {
        byte[] key = ("key-" + round + "-" + i).getBytes(StandardCharsets.UTF_8);
        List<NodeAddress> before = change.replicasBefore(key);
        List<NodeAddress> after = change.replicasAfter(key);
        MovedRange range = change.rangeOf(key);
        assertThat(range.gaining()).isEqualTo(difference(after, before));
        assertThat(range.losing()).isEqualTo(difference(before, after));
        if (range.moves()) {
          assertThat(ranges).as("%s of key %d in %s", range, i, change).contains(range);
          seen.add(range);
        }
      }
      // With at most 6 nodes every order of them has a chance of 1/720 per key: every range occurs.
      assertThat(seen).as("ranges no key falls in, in %s", change).isEqualTo(ranges);
    }
  }

  @Test
  void aFourthNodeGainsAboutThreeQuartersOfTheKeysAndNoOldNodeGainsAny() {
    List<NodeAddress> four = Nodes.loopback(4);
    PlacementChange change = new PlacementChange(Nodes.placement(four.subList(0, 3)), Nodes.placement(four), 3);
    NodeAddress added = four.get(3);
    int gained = 0;
    for (int i = 0; i < KEYS; i++) {
      MovedRange range = change.rangeOf(("k" + i).getBytes(StandardCharsets.UTF_8));
      if (range.moves()) assertThat(range.gaining()).containsExactly(added);
      if (range.gaining().contains(added)) gained++;
    }
    assertThat(gained).isBetween(KEYS * 3 / 4 - KEYS / 50, KEYS * 3 / 4 + KEYS / 50);
    assertThat(change.rangesGainedBy(added)).hasSize(3); // it takes the place of one of the three
    assertThat(change.rangesGainedBy(four.get(0))).isEmpty();
  }

  private static PlacementChange randomChange(Random random) {
    List<NodeAddress> all = Nodes.loopback(6);
    Collections.shuffle(all, random);
    int beforeSize = 1 + random.nextInt(5);
    List<NodeAddress> before = new ArrayList<>(all.subList(0, beforeSize));
    List<NodeAddress> after = new ArrayList<>(before);
    int joins = random.nextInt(3);
    for (int i = 0; i < joins && beforeSize + i < all.size(); i++) after.add(all.get(beforeSize + i));
    int leaves = random.nextInt(Math.min(2, after.size()));
    for (int i = 0; i < leaves; i++) after.remove(random.nextInt(after.size()));
    if (after.equals(before)) after.add(all.get(beforeSize)); // beforeSize <= 5: a node is left
    return new PlacementChange(Nodes.placement(before), Nodes.placement(after), 1 + random.nextInt(3));
  }

  private static Set<NodeAddress> difference(List<NodeAddress> a, List<NodeAddress> b) {
    Set<NodeAddress> left = new HashSet<>(a);
    b.forEach(left::remove);
    return left;
  }
}
