package dev.shale.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The default Raft port: derived the same way on every node, never among Linux's ephemeral ports. */
class RaftAddressTest {

  @Test
  void noDefaultRaftPortIsAnEphemeralPortOrTheHttpPortItself() {
    for (int http = 1; http <= 65_535; http++) {
      int raft = RaftAddress.defaultPort(http);
      assertThat(raft).as("Raft port of HTTP port %d", http).isBetween(1024, 32_767).isNotEqualTo(http);
    }
  }

  @Test
  void theUsualPortsKeepTheirRaftPortsAndAPortOnceTakenByAnOutgoingConnectionIsNotChosen() {
    assertThat(RaftAddress.defaultPort(8080)).isEqualTo(18_080);
    assertThat(RaftAddress.defaultPort(22_767)).isEqualTo(32_767);
    // A start on 27160 once failed: its Raft port 37160 had been taken by an outgoing connection.
    assertThat(RaftAddress.defaultPort(27_160)).isEqualTo(7160);
    assertThat(RaftAddress.defaultPort(65_535)).isEqualTo(15_535);
  }

  @Test
  void consecutiveHttpPortsGetConsecutiveRaftPorts() {
    for (int http : new int[] {8080, 38_080, 60_000}) {
      assertThat(RaftAddress.defaultPort(http + 1)).isEqualTo(RaftAddress.defaultPort(http) + 1);
      assertThat(RaftAddress.defaultPort(http + 2)).isEqualTo(RaftAddress.defaultPort(http) + 2);
    }
  }

  @Test
  void aPortOutsideTheRangeHasNone() {
    assertThatThrownBy(() -> RaftAddress.defaultPort(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RaftAddress.defaultPort(65_536)).isInstanceOf(IllegalArgumentException.class);
  }
}
