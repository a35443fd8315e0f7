package dev.shale.cluster.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Nodes;
import dev.shale.cluster.Placement;
import dev.shale.cluster.handoff.PlacementChange;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplicaSetsTest {
  private final List<NodeAddress> five = Nodes.loopback(5);
  private final List<NodeAddress> four = five.subList(0, 4);
  private final Placement three = Nodes.placement(four.subList(0, 3));
  private final PlacementChange join = new PlacementChange(three, Nodes.placement(four), 3);
  private final Consistency quorum = new Consistency(2, 3);

  @Test
  void withoutAChangeWritesAndReadsGoToThePreferenceList() {
    ReplicaSets sets = new ReplicaSets(three);
    byte[] key = key(1);
    ReplicaPlacement.Writes writes = sets.writeReplicas(key, 3);
    assertThat(writes.nodes()).isEqualTo(three.preferenceList(key, 3));
    assertThat(writes.tally(quorum)).isEqualTo(quorum);
    assertThat(sets.replicas(key, 3)).isEqualTo(three.preferenceList(key, 3));
  }

  @Test
  void whileAChangeIsPendingWritesAlsoReachTheNewReplicaAndNeedOneMoreAnswerReadsStayOnTheOldSet() {
    ReplicaSets sets = new ReplicaSets(three);
    sets.begin(join);
    int moved = 0;
    for (int i = 0; i < 1000; i++) {
      byte[] key = key(i);
      ReplicaPlacement.Writes targets = sets.writeReplicas(key, 3);
      assertThat(sets.replicas(key, 3)).isEqualTo(three.preferenceList(key, 3));
      assertThat(targets.nodes().subList(0, 3)).isEqualTo(three.preferenceList(key, 3));
      if (join.rangeOf(key).moves()) {
        moved++;
        assertThat(targets.nodes()).hasSize(4).endsWith(four.get(3));
        assertThat(targets.tally(quorum)).isEqualTo(new Consistency(3, 4));
      } else {
        assertThat(targets.tally(quorum)).isEqualTo(quorum);
      }
    }
    assertThat(moved).isPositive();
    sets.commit(join);
    assertThat(sets.pending()).isNull();
    assertThat(sets.replicas(key(7), 3)).isEqualTo(Nodes.placement(four).preferenceList(key(7), 3));
  }

  /**
   * The claim in ReplicaSets: whichever targets fail, as long as the write is acknowledged, every
   * read quorum of the placement after the change meets a replica that took it.
   */
  @Test
  void noAcknowledgedWriteIsMissedByAReadQuorumAfterTheChange() {
    PlacementChange leave = new PlacementChange(Nodes.placement(four), three, 3);
    for (PlacementChange change : List.of(join, leave)) {
      ReplicaSets sets = new ReplicaSets(change.before());
      sets.begin(change);
      for (int i = 0; i < 300; i++) {
        byte[] key = key(i);
        ReplicaPlacement.Writes targets = sets.writeReplicas(key, 3);
        List<NodeAddress> readSet = change.after().preferenceList(key, 3);
        for (Set<NodeAddress> acked : subsets(targets.nodes())) {
          if (acked.size() < targets.tally(quorum).ack()) continue;
          for (Set<NodeAddress> read : subsets(readSet)) {
            if (read.size() != quorum.ack()) continue;
            assertThat(read).as("key %d acked by %s, read from %s", i, acked, read).containsAnyElementsOf(acked);
          }
        }
      }
    }
  }

  @Test
  void aSecondChangeWhileOneIsPendingIsRefused() {
    ReplicaSets sets = new ReplicaSets(three);
    sets.begin(join);
    sets.begin(join); // the same one again, as after a restart: fine
    PlacementChange other = new PlacementChange(three, Nodes.placement(List.of(five.get(0), five.get(1), five.get(2), five.get(4))), 3);
    assertThatThrownBy(() -> sets.begin(other)).isInstanceOf(IllegalStateException.class).hasMessageContaining("already pending");
  }

  private static List<Set<NodeAddress>> subsets(List<NodeAddress> nodes) {
    List<Set<NodeAddress>> all = new ArrayList<>();
    for (int mask = 0; mask < 1 << nodes.size(); mask++) {
      Set<NodeAddress> subset = new HashSet<>();
      for (int i = 0; i < nodes.size(); i++) if ((mask & 1 << i) != 0) subset.add(nodes.get(i));
      all.add(subset);
    }
    return all;
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }
}
