package dev.shale.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import dev.shale.cluster.membership.Membership;
import dev.shale.cluster.membership.RaftAddress;
import dev.shale.cluster.membership.TopologyChange;
import dev.shale.storage.Env;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Repairs take their nodes from the cluster map as it is when they start (Cluster.livePlacement). */
class LiveRepairPlacementTest {
  private static final NodeAddress A = new NodeAddress("127.0.0.1", 9001);
  private static final NodeAddress B = new NodeAddress("127.0.0.1", 9002);
  private static final NodeAddress C = new NodeAddress("127.0.0.1", 9003);

  private final AtomicReference<ClusterMap> map = new AtomicReference<>(map(1, member(A, MemberState.NORMAL), member(B, MemberState.NORMAL)));
  private final Cluster cluster = new Cluster(new Placement(new Topology(List.of(A, B), A)),
      InternalAuth.withSecret("live-repair-placement-secret".getBytes(StandardCharsets.UTF_8), Env.real()::wallMillis), 1_000, 4, 0, 2, new Changing());

  @Test
  void theReadableMembersOfTheMapNowWithThisNodeAsSelf() {
    assertThat(cluster.livePlacement().topology().nodes()).containsExactly(A, B);

    map.set(map(2, member(A, MemberState.NORMAL), member(B, MemberState.NORMAL), member(C, MemberState.JOINING)));
    assertThat(cluster.livePlacement().topology().nodes()).as("a joining member is not repaired with yet").containsExactly(A, B);

    map.set(map(3, member(A, MemberState.NORMAL), member(B, MemberState.NORMAL), member(C, MemberState.NORMAL)));
    Placement now = cluster.livePlacement();
    assertThat(now.topology().nodes()).containsExactly(A, B, C);
    assertThat(now.topology().self()).isEqualTo(A);

    map.set(map(4, member(A, MemberState.NORMAL), member(C, MemberState.NORMAL)));
    assertThat(cluster.livePlacement().topology().nodes()).as("a removed member is gone").containsExactly(A, C);
  }

  @Test
  void aNodeThatIsNotReadableHasNothingToRepair() {
    map.set(map(2, member(A, MemberState.JOINING), member(B, MemberState.NORMAL)));
    assertThat(cluster.livePlacement().topology().nodes()).containsExactly(A);

    List<NodeAddress> asked = new ArrayList<>();
    ClusterRepair repair = new ClusterRepair(cluster::livePlacement, 2, node -> {
      asked.add(node);
      throw new AssertionError("no side is needed");
    }, RepairThrottle.perSecond(1_000, Env.real()), 3, Env.real());
    assertThat(repair.repairAll().rangesCompared()).isZero();
    assertThat(asked).isEmpty();
  }

  private static Member member(NodeAddress address, MemberState state) {
    return new Member(address, RaftAddress.of(address.host(), RaftAddress.defaultPort(address.port())), state, "");
  }

  private static ClusterMap map(long version, Member... members) {
    return new ClusterMap(version, List.of(members), 2);
  }

  /** A map that the test changes; nothing is agreed. */
  private final class Changing implements Membership {
    @Override
    public boolean changes() {
      return true;
    }

    @Override
    public ClusterMap current() {
      return map.get();
    }

    @Override
    public CompletableFuture<ClusterMap> change(TopologyChange change) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<ClusterMap> join(NodeAddress address, String raftAddress) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<ClusterMap> remove(NodeAddress address, boolean dead) {
      throw new UnsupportedOperationException();
    }
  }
}
