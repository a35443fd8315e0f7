package dev.shale.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.NodeAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A member removed because it is down ({@code nodes remove --dead}): leaving, marked dead, in the
 * map and in its stored forms (docs/format.md, "Cluster map").
 */
class DeadMemberTest {
  private static final NodeAddress A = ClusterMapTest.node(9001);
  private static final NodeAddress B = ClusterMapTest.node(9002);
  private static final NodeAddress C = ClusterMapTest.node(9003);
  private static final NodeAddress D = ClusterMapTest.node(9004);
  private static final NodeAddress E = ClusterMapTest.node(9005);

  @Test
  void aDeadMemberLeavesUntilItIsRemovedAndNoOtherChangeStartsMeanwhile() {
    ClusterMap dead = fourNodes().apply(new TopologyChange.MarkDead(D), 7);
    Member d = dead.member(D).orElseThrow();
    assertThat(d.state()).isEqualTo(MemberState.LEAVING);
    assertThat(d.dead()).isTrue();
    assertThat(dead.inTransition()).contains(d);
    assertThat(dead.deadMembers()).containsExactly(D);
    assertThat(dead.readableMembers()).containsExactly(A, B, C, D);
    assertThat(dead.writableMembers()).containsExactly(A, B, C);
    for (TopologyChange other : List.of(ClusterMapTest.join(E), new TopologyChange.MarkLeaving(A), new TopologyChange.MarkDead(A),
        new TopologyChange.Remove(A))) {
      assertThatThrownBy(() -> dead.apply(other, 8)).isInstanceOf(TopologyChangeRefused.class)
          .hasMessageContaining(D + " is leaving").hasMessageContaining("one change at a time");
    }
    ClusterMap removed = dead.apply(new TopologyChange.Remove(D), 8);
    assertThat(removed.addresses()).containsExactly(A, B, C);
    assertThat(removed.inTransition()).isEmpty();
    assertThat(removed.deadMembers()).isEmpty();
  }

  @Test
  void aDeadMemberKeepsItsPlaceAmongAKeysReplicasUntilItIsRemoved() {
    // Without it a key it replicated would have fewer than `from` replicas (the coordinator refuses
    // those requests), and its successor may not hold the key yet: a request to it fails instead.
    ClusterMap leaving = fourNodes().apply(new TopologyChange.MarkLeaving(D), 7);
    ClusterMap dead = fourNodes().apply(new TopologyChange.MarkDead(D), 7);
    for (int i = 0; i < 500; i++) {
      byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
      assertThat(dead.readReplicas(key, 3)).isEqualTo(leaving.readReplicas(key, 3)).hasSize(3);
      assertThat(dead.replicasAfterChange(key, 3)).isEqualTo(leaving.replicasAfterChange(key, 3)).doesNotContain(D);
    }
  }

  @Test
  void aLeavingMemberThatWentDownIsMarkedDeadAndAskingAgainChangesNothing() {
    ClusterMap leaving = fourNodes().apply(new TopologyChange.MarkLeaving(D), 7);
    ClusterMap dead = leaving.apply(new TopologyChange.MarkDead(D), 8);
    assertThat(dead.member(D)).get().extracting(Member::dead).isEqualTo(true);

    ClusterMap again = dead.apply(new TopologyChange.MarkDead(D), 9);
    assertThat(again.members()).isEqualTo(dead.members());
    assertThat(again.version()).isEqualTo(9);
    // A live leave asked of a dead member does not bring it back to life.
    assertThat(dead.apply(new TopologyChange.MarkLeaving(D), 9).members()).isEqualTo(dead.members());
  }

  @Test
  void aDeadRemovalOfAJoiningUnknownOrLastMemberIsRefused() {
    assertThatThrownBy(() -> ClusterMapTest.threeNodes().apply(ClusterMapTest.join(D), 2).apply(new TopologyChange.MarkDead(D), 3))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining(D + " is joining");
    assertThatThrownBy(() -> fourNodes().apply(new TopologyChange.MarkDead(E), 7))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("cannot mark dead " + E + ": not a member");
    assertThatThrownBy(() -> ClusterMap.EMPTY.apply(ClusterMapTest.bootstrap(A), 1).apply(new TopologyChange.MarkDead(A), 2))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("last member");
    assertThatThrownBy(() -> new Member(A, "127.0.0.1:19001", MemberState.NORMAL, "", true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only a leaving member is dead");
  }

  @Test
  void theDeadChangeAndAMapWithADeadMemberComeBackAsTheyWent() {
    TopologyChange change = new TopologyChange.MarkDead(D);
    assertThat(new String(TopologyChangeCodec.encode(change), StandardCharsets.UTF_8)).isEqualTo("dead http://127.0.0.1:9004");
    assertThat(TopologyChangeCodec.decode(TopologyChangeCodec.encode(change))).isEqualTo(change);

    ClusterMap map = reported();
    ClusterMap back = ClusterMapCodec.decode(ClusterMapCodec.encode(map));
    assertThat(back).isEqualTo(map);
    assertThat(back.member(D)).get().extracting(Member::dead).isEqualTo(true);
    String trimmed = new String(ClusterMapCodec.encode(map), StandardCharsets.UTF_8).replace(" \n", "\n");
    assertThat(ClusterMapCodec.decode(trimmed.getBytes(StandardCharsets.UTF_8))).isEqualTo(map);
  }

  @Test
  void theDeadMemberExampleOfTheFormatDocIsWhatTheCodecWrites() {
    // docs/format.md, "Cluster map": four nodes at index 1, `dead` of the fourth at 7, a report at 8.
    assertThat(new String(ClusterMapCodec.encode(reported()), StandardCharsets.UTF_8)).isEqualTo("""
        shale-cluster-map 2
        version 8
        placement-version 7
        replication-factor 3
        member http://127.0.0.1:9001 127.0.0.1:19001 normal handoff%3A+received+the+ranges+of+127.0.0.1%3A9004+leaving
        member http://127.0.0.1:9002 127.0.0.1:19002 normal\s
        member http://127.0.0.1:9003 127.0.0.1:19003 normal\s
        member http://127.0.0.1:9004 127.0.0.1:19004 dead\s
        """);
  }

  /** The format doc's example: D dead, A reporting it received what it gains. */
  private static ClusterMap reported() {
    return fourNodes().apply(new TopologyChange.MarkDead(D), 7)
        .apply(new TopologyChange.Progress(A, "handoff: received the ranges of 127.0.0.1:9004 leaving"), 8);
  }

  private static ClusterMap fourNodes() {
    return ClusterMap.EMPTY.apply(ClusterMapTest.bootstrap(A, B, C, D), 1);
  }
}
