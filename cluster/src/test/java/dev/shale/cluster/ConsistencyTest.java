package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConsistencyTest {

  @Test
  void defaultsToEveryReplicaAndAQuorum() {
    assertThat(Consistency.defaultFor(1)).isEqualTo(new Consistency(1, 1));
    assertThat(Consistency.defaultFor(2)).isEqualTo(new Consistency(2, 2));
    assertThat(Consistency.defaultFor(3)).isEqualTo(new Consistency(2, 3));
    assertThat(Consistency.defaultFor(4)).isEqualTo(new Consistency(3, 4));
    assertThat(Consistency.defaultFor(5)).isEqualTo(new Consistency(3, 5));
  }

  @Test
  void missingParametersTakeTheDefaults() {
    assertThat(Consistency.parse(null, null, 3, 3)).isEqualTo(new Consistency(2, 3));
    assertThat(Consistency.parse(null, "2", 3, 3)).isEqualTo(new Consistency(2, 2));
    assertThat(Consistency.parse(null, "1", 3, 3)).isEqualTo(new Consistency(1, 1));
    assertThat(Consistency.parse("1", null, 3, 3)).isEqualTo(new Consistency(1, 3));
    assertThat(Consistency.parse("3", "3", 3, 3)).isEqualTo(new Consistency(3, 3));
  }

  @Test
  void refusesWhatIsNotAPositiveInteger() {
    for (String bad : new String[] {"", "0", "-1", "+1", "1.5", "x", " 1", "1234567890", "٣"}) {
      assertThatThrownBy(() -> Consistency.parse(bad, "3", 3, 3))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ack must be a positive integer");
      assertThatThrownBy(() -> Consistency.parse("1", bad, 3, 3))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from must be a positive integer");
    }
  }

  @Test
  void refusesAckAboveFromAndFromAboveTheCluster() {
    assertThatThrownBy(() -> Consistency.parse("3", "2", 3, 3)).hasMessage("ack (3) must not exceed from (2)");
    assertThatThrownBy(() -> Consistency.parse("4", null, 3, 3)).hasMessage("ack (4) must not exceed from (3)");
    assertThatThrownBy(() -> Consistency.parse(null, "4", 3, 3)).hasMessage("from (4) exceeds the cluster's 3 node(s)");
  }

  @Test
  void fromDefaultsToTheReplicationFactorAndMayGoUpToTheClustersSize() {
    assertThat(Consistency.parse(null, null, 2, 4)).isEqualTo(new Consistency(2, 2));
    assertThat(Consistency.parse(null, null, 3, 5)).isEqualTo(new Consistency(2, 3));
    assertThat(Consistency.parse("1", null, 3, 5)).isEqualTo(new Consistency(1, 3));
    assertThat(Consistency.parse(null, "4", 2, 4)).isEqualTo(new Consistency(3, 4));
    assertThatThrownBy(() -> Consistency.parse(null, "5", 2, 4)).hasMessage("from (5) exceeds the cluster's 4 node(s)");
  }

  @Test
  void aClusterDefaultsToThreeReplicasOrEveryNodeOfASmallerOne() {
    assertThat(cluster(1).replicationFactor()).isEqualTo(1);
    assertThat(cluster(2).replicationFactor()).isEqualTo(2);
    assertThat(cluster(3).replicationFactor()).isEqualTo(3);
    assertThat(cluster(5).replicationFactor()).isEqualTo(3);
    assertThat(cluster(5).consistency(null, null)).isEqualTo(new Consistency(2, 3));
    assertThat(cluster(5).consistency(null, "5")).isEqualTo(new Consistency(3, 5));
  }

  @Test
  void aClusterRefusesAReplicationFactorOutsideOneToItsSize() {
    Cluster four = cluster(4);
    assertThat(new Cluster(four.placement(), four.auth(), 1_000, 1, Cluster.DEFAULT_READ_SPECULATION_MILLIS, 4).consistency(null, null)).isEqualTo(new Consistency(3, 4));
    assertThatThrownBy(() -> new Cluster(four.placement(), four.auth(), 1_000, 1, Cluster.DEFAULT_READ_SPECULATION_MILLIS, 5))
        .hasMessage("replicationFactor (5) exceeds the cluster's 4 node(s): a key cannot live on more nodes than there are");
    assertThatThrownBy(() -> new Cluster(four.placement(), four.auth(), 1_000, 1, Cluster.DEFAULT_READ_SPECULATION_MILLIS, 0))
        .hasMessage("replicationFactor must be at least 1: 0");
  }

  private static Cluster cluster(int nodes) {
    return new Cluster(Nodes.placement(Nodes.loopback(nodes)), InternalAuth.trustedNetwork(), 1_000, 1);
  }
}
