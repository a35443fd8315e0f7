package dev.shale.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.NodeAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterMapTest {
  private static final NodeAddress A = node(9001);
  private static final NodeAddress B = node(9002);
  private static final NodeAddress C = node(9003);
  private static final NodeAddress D = node(9004);
  private static final NodeAddress E = node(9005);

  @Test
  void aBootstrapMakesEveryMemberNormalAtTheLogIndex() {
    ClusterMap map = threeNodes();
    assertThat(map.version()).isEqualTo(1);
    assertThat(map.replicationFactor()).isEqualTo(3);
    assertThat(map.members()).extracting(Member::address).containsExactly(A, B, C);
    assertThat(map.members()).extracting(Member::state).containsOnly(MemberState.NORMAL);
    assertThatThrownBy(() -> map.apply(bootstrap(D), 2))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("bootstrapped already");
  }

  @Test
  void thePlacementVersionIsTheLastChangeOfWhoIsReadFromOrWrittenTo() {
    ClusterMap three = threeNodes();
    assertThat(three.placementVersion()).as("the --cluster list every node served with as map 0").isZero();
    ClusterMap joining = three.apply(join(D), 5);
    assertThat(joining.placementVersion()).as("a join adds a member written to").isEqualTo(5);
    ClusterMap reported = joining.apply(new TopologyChange.Progress(D, "streamed 40%"), 6).apply(join(D), 7);
    assertThat(reported.placementVersion()).as("a progress report, a join asked again: the same placement").isEqualTo(5);
    assertThat(reported.version()).isEqualTo(7);
    ClusterMap normal = reported.apply(new TopologyChange.MarkNormal(D), 8);
    assertThat(normal.placementVersion()).as("a normal member is read from").isEqualTo(8);
    ClusterMap leaving = normal.apply(new TopologyChange.MarkLeaving(A), 9);
    assertThat(leaving.placementVersion()).isEqualTo(9);
    assertThat(leaving.apply(new TopologyChange.Remove(A), 10).placementVersion()).isEqualTo(10);
    // A map read from a store that did not keep it takes its own version, never an earlier one.
    ClusterMap stored = new ClusterMap(reported.version(), reported.members(), reported.replicationFactor());
    assertThat(stored).isEqualTo(reported);
    assertThat(stored.placementVersion()).isEqualTo(7);
    assertThat(ClusterMapCodec.decode(ClusterMapCodec.encode(reported)).placementVersion()).as("kept in the stored form").isEqualTo(5);
    String version1 = new String(ClusterMapCodec.encode(reported), java.nio.charset.StandardCharsets.UTF_8)
        .replace("shale-cluster-map 2", "shale-cluster-map 1").replace("placement-version 5\n", "");
    assertThat(ClusterMapCodec.decode(version1.getBytes(java.nio.charset.StandardCharsets.UTF_8)).placementVersion())
        .as("a map stored before the line existed").isEqualTo(7);
  }

  @Test
  void nothingButABootstrapAppliesToAnEmptyMap() {
    assertThatThrownBy(() -> ClusterMap.EMPTY.apply(new TopologyChange.Join(D, "127.0.0.1:19004"), 1))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("not bootstrapped");
    assertThatThrownBy(() -> ClusterMap.EMPTY.apply(new TopologyChange.Remove(A), 1))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("not bootstrapped");
  }

  @Test
  void aJoinGoesThroughJoiningToNormal() {
    ClusterMap joining = threeNodes().apply(join(D), 5);
    assertThat(joining.version()).isEqualTo(5);
    assertThat(joining.member(D)).get().extracting(Member::state).isEqualTo(MemberState.JOINING);
    assertThat(joining.inTransition()).get().extracting(Member::address).isEqualTo(D);

    ClusterMap reported = joining.apply(new TopologyChange.Progress(D, "streamed 40% (12 MB)"), 6);
    assertThat(reported.member(D)).get().extracting(Member::progress).isEqualTo("streamed 40% (12 MB)");

    ClusterMap normal = reported.apply(new TopologyChange.MarkNormal(D), 7);
    assertThat(normal.member(D)).get().extracting(Member::state).isEqualTo(MemberState.NORMAL);
    assertThat(normal.member(D)).get().extracting(Member::progress).isEqualTo("");
    assertThat(normal.inTransition()).isEmpty();
  }

  @Test
  void aSecondJoinIsRefusedWhileOneIsUnderWay() {
    ClusterMap joining = threeNodes().apply(join(D), 2);
    assertThatThrownBy(() -> joining.apply(join(E), 3))
        .isInstanceOf(TopologyChangeRefused.class)
        .hasMessageContaining("cannot add " + E).hasMessageContaining(D + " is joining").hasMessageContaining("one change at a time");
    assertThatThrownBy(() -> joining.apply(new TopologyChange.MarkLeaving(A), 3))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining(D + " is joining");
    assertThatThrownBy(() -> joining.apply(new TopologyChange.Remove(A), 3))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining(D + " is joining");
  }

  @Test
  void theSameJoinAskedTwiceIsNoError() {
    ClusterMap once = threeNodes().apply(join(D), 2);
    ClusterMap twice = once.apply(join(D), 3);
    assertThat(twice.members()).isEqualTo(once.members());
    assertThat(twice.version()).isEqualTo(3);
    assertThatThrownBy(() -> once.apply(new TopologyChange.Join(D, "127.0.0.1:1"), 3))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("a member already");
    assertThatThrownBy(() -> threeNodes().apply(join(A), 2))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("a member already (normal)");
  }

  @Test
  void aLeaveGoesThroughLeavingToRemoved() {
    ClusterMap leaving = threeNodes().apply(new TopologyChange.MarkLeaving(B), 2);
    assertThat(leaving.member(B)).get().extracting(Member::state).isEqualTo(MemberState.LEAVING);
    assertThatThrownBy(() -> leaving.apply(join(D), 3)).isInstanceOf(TopologyChangeRefused.class)
        .hasMessageContaining(B + " is leaving");
    assertThatThrownBy(() -> leaving.apply(new TopologyChange.Remove(C), 3)).isInstanceOf(TopologyChangeRefused.class)
        .hasMessageContaining(B + " is leaving");
    ClusterMap removed = leaving.apply(new TopologyChange.Remove(B), 3);
    assertThat(removed.addresses()).containsExactly(A, C);
    assertThat(removed.inTransition()).isEmpty();
  }

  @Test
  void aDeadMemberIsRemovedWithoutLeaving() {
    ClusterMap removed = threeNodes().apply(new TopologyChange.Remove(C), 2);
    assertThat(removed.addresses()).containsExactly(A, B);
  }

  @Test
  void theLastMemberStays() {
    ClusterMap one = ClusterMap.EMPTY.apply(bootstrap(A), 1);
    assertThatThrownBy(() -> one.apply(new TopologyChange.Remove(A), 2))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("last member");
    assertThatThrownBy(() -> one.apply(new TopologyChange.MarkLeaving(A), 2))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("last member");
  }

  @Test
  void changesOfUnknownMembersAreRefused() {
    for (TopologyChange change : List.of(new TopologyChange.MarkNormal(D), new TopologyChange.MarkLeaving(D),
        new TopologyChange.Remove(D), new TopologyChange.Progress(D, "x"))) {
      assertThatThrownBy(() -> threeNodes().apply(change, 2))
          .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining(D + ": not a member");
    }
    assertThatThrownBy(() -> threeNodes().apply(new TopologyChange.MarkNormal(A), 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not after version");
  }

  @Test
  void markingALeavingMemberNormalIsRefused() {
    ClusterMap leaving = threeNodes().apply(new TopologyChange.MarkLeaving(B), 2);
    assertThatThrownBy(() -> leaving.apply(new TopologyChange.MarkNormal(B), 3))
        .isInstanceOf(TopologyChangeRefused.class).hasMessageContaining("it is leaving, not joining");
  }

  @Test
  void aJoiningMemberIsWrittenToButNotReadFrom() {
    ClusterMap joining = threeNodes().apply(join(D), 2);
    int joinerWritten = 0;
    for (int i = 0; i < 1000; i++) {
      byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
      List<NodeAddress> reads = joining.readReplicas(key, 2);
      List<NodeAddress> after = joining.replicasAfterChange(key, 2);
      assertThat(reads).hasSize(2).doesNotContain(D).isEqualTo(threeNodes().readReplicas(key, 2));
      assertThat(after).hasSize(2).doesNotHaveDuplicates();
      if (after.contains(D)) {
        joinerWritten++;
      } else {
        assertThat(after).as("a key D does not take keeps its replicas").isEqualTo(reads);
      }
    }
    // D weighs most or second most for about half of the keys: they will be its copies.
    assertThat(joinerWritten).isBetween(400, 600);
  }

  @Test
  void aLeavingMemberIsReadFromUntilItIsRemoved() {
    ClusterMap leaving = threeNodes().apply(new TopologyChange.MarkLeaving(C), 2);
    for (int i = 0; i < 200; i++) {
      byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
      assertThat(leaving.readReplicas(key, 3)).containsExactlyInAnyOrder(A, B, C);
      assertThat(leaving.replicasAfterChange(key, 3)).containsExactlyInAnyOrder(A, B);
      assertThat(leaving.readReplicas(key, 5)).hasSize(3);
    }
  }

  static ClusterMap threeNodes() {
    return ClusterMap.EMPTY.apply(bootstrap(A, B, C), 1);
  }

  static TopologyChange.Bootstrap bootstrap(NodeAddress... nodes) {
    return new TopologyChange.Bootstrap(List.of(nodes).stream()
        .map(n -> new Member(n, RaftAddress.of(n.host(), RaftAddress.defaultPort(n.port())), MemberState.NORMAL, "")).toList(), 3);
  }

  static TopologyChange.Join join(NodeAddress node) {
    return new TopologyChange.Join(node, RaftAddress.of(node.host(), RaftAddress.defaultPort(node.port())));
  }

  static NodeAddress node(int port) {
    return new NodeAddress("127.0.0.1", port);
  }
}
