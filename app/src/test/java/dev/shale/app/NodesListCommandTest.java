package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import dev.shale.cluster.membership.TopologyChange;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How {@code shale nodes list} prints the map: a member removed as dead is told from a live leaving one. */
class NodesListCommandTest {
  @Test
  void aMemberLeavingBecauseItIsDownIsListedAsDead() {
    List<Member> members = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      members.add(new Member(new NodeAddress("127.0.0.1", 9000 + i), "127.0.0.1:" + (19000 + i), MemberState.NORMAL, ""));
    }
    ClusterMap map = ClusterMap.EMPTY.apply(new TopologyChange.Bootstrap(members, 3), 1)
        .apply(new TopologyChange.MarkDead(new NodeAddress("127.0.0.1", 9003)), 2);

    assertThat(NodesListCommand.table(map)).containsPattern("http://127\\.0\\.0\\.1:9002 +normal")
        .containsPattern("http://127\\.0\\.0\\.1:9003 +dead");
    assertThat(NodesListCommand.json(map))
        .contains("{\"url\": \"http://127.0.0.1:9002\", \"state\": \"normal\", \"raftAddress\"")
        .contains("{\"url\": \"http://127.0.0.1:9003\", \"state\": \"leaving\", \"dead\": true, \"raftAddress\"");
  }
}
