package dev.shale.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An operator's repair of every pair, through one node of three in-memory replicas. */
class ClusterRepairTest {
  private static final NodeAddress A = new NodeAddress("127.0.0.1", 8080);
  private static final NodeAddress B = new NodeAddress("127.0.0.1", 8081);
  private static final NodeAddress C = new NodeAddress("127.0.0.1", 8082);

  @Test
  void aReplicaThatMissedWritesGetsThemFromTheRepairingNodeNotFromAnotherPeer() {
    // C repairs; B missed the newer writes that A and C hold. In the nodes' order the pair of the
    // two peers, A and B, comes first: repaired first, B's records would be read from A and
    // cross the network twice (from A, to B) instead of once (from C, to B).
    MapSide a = new MapSide(A);
    MapSide b = new MapSide(B);
    MapSide c = new MapSide(C, false);
    for (int i = 0; i < 200; i++) {
      for (MapSide side : List.of(a, b, c)) side.put(value(i, 1));
      if (i % 4 == 0) {
        a.put(value(i, 2));
        c.put(value(i, 2));
      }
    }
    Map<NodeAddress, MapSide> sides = Map.of(A, a, B, b, C, c);
    Placement placement = new Placement(new Topology(List.of(A, B, C), C));
    ClusterRepair repair = new ClusterRepair(() -> placement, 3, sides::get, RepairThrottle.unlimited(), 8, Env.real());

    RepairReport report = repair.repairAll();

    assertThat(report.rangesCompared()).isEqualTo(3);
    assertThat(report.recordsExchanged()).isEqualTo(50);
    assertThat(b.records.values()).containsExactlyElementsOf(c.records.values());
    assertThat(a.reads).as("records read from the peer A").isZero();
    assertThat(c.reads).isEqualTo(50);
  }

  private static Entry value(int i, long version) {
    return new Entry(RepairTreeTest.key(i), version, ("v" + version + "-" + i).getBytes());
  }
}
