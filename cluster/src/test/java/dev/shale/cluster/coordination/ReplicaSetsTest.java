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
    assertThat(writes.after()).isSameAs(writes.before());
    assertThat(sets.replicas(key, 3)).isEqualTo(three.preferenceList(key, 3));
  }

  @Test
  void whileAChangeIsPendingWritesAlsoReachTheNewReplicaAndTheSharedReplicasAloneAcknowledgeThem() {
    ReplicaSets sets = new ReplicaSets(three);
    sets.begin(join);
    NodeAddress joiner = four.get(3);
    int moved = 0;
    for (int i = 0; i < 1000; i++) {
      byte[] key = key(i);
      ReplicaPlacement.Writes targets = sets.writeReplicas(key, 3);
      assertThat(sets.replicas(key, 3)).isEqualTo(three.preferenceList(key, 3));
      assertThat(targets.before()).isEqualTo(three.preferenceList(key, 3));
      assertThat(targets.after()).isEqualTo(Nodes.placement(four).preferenceList(key, 3));
      if (!join.rangeOf(key).moves()) {
        assertThat(targets.nodes()).isEqualTo(targets.before());
        continue;
      }
      moved++;
      assertThat(targets.nodes()).hasSize(4).endsWith(joiner);
      List<NodeAddress> shared = new ArrayList<>(targets.before());
      shared.retainAll(targets.after());
      assertThat(shared).hasSize(2);
      NodeAddress replaced = targets.before().stream().filter(n -> !shared.contains(n)).findFirst().orElseThrow();

      Tally sharedOnly = Tally.of(quorum, targets);
      shared.forEach(sharedOnly::answered);
      assertThat(sharedOnly.reached()).as("the joiner is not waited for").isTrue();

      Tally leavingTheShared = Tally.of(quorum, targets);
      leavingTheShared.answered(replaced);
      leavingTheShared.answered(joiner);
      assertThat(leavingTheShared.decided()).as("one answer of each set is not a quorum of either").isFalse();
      leavingTheShared.answered(shared.get(0));
      assertThat(leavingTheShared.reached()).isTrue();
    }
    assertThat(moved).isPositive();
    sets.commit(join);
    assertThat(sets.pending()).isNull();
    assertThat(sets.replicas(key(7), 3)).isEqualTo(Nodes.placement(four).preferenceList(key(7), 3));
  }

  /**
   * The claim in ReplicaPlacement: whichever targets fail, as long as the write is acknowledged,
   * every read quorum of the placement before the change (reads follow it until the commit) and
   * after it meets a replica that took it.
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
        for (Set<NodeAddress> acked : subsets(targets.nodes())) {
          Tally tally = Tally.of(quorum, targets);
          acked.forEach(tally::answered);
          if (!tally.reached()) continue;
          for (List<NodeAddress> readSet : List.of(change.before().preferenceList(key, 3), change.after().preferenceList(key, 3))) {
            for (Set<NodeAddress> read : subsets(readSet)) {
              if (read.size() != quorum.ack()) continue;
              assertThat(read).as("key %d acked by %s, read from %s", i, acked, read).containsAnyElementsOf(acked);
            }
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
