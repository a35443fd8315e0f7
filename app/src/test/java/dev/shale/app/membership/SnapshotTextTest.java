package dev.shale.app.membership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.auth.ApiToken;
import dev.shale.cluster.auth.Grant;
import dev.shale.cluster.auth.Scope;
import dev.shale.cluster.auth.TokenChange;
import dev.shale.cluster.auth.TokenSet;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The state machine's snapshot: the map, then the token set once there is one; a snapshot of the map alone still reads. */
class SnapshotTextTest {
  private static final ClusterMap MAP = new ClusterMap(4, List.of(
      new Member(NodeAddress.parse("http://127.0.0.1:9001"), "127.0.0.1:19001", MemberState.NORMAL, "")), 1);

  @Test
  void aSnapshotWithTokensReadsBackAsTheMapAndTheSet() {
    TokenSet tokens = TokenSet.EMPTY.apply(new TokenChange.Add(new ApiToken("app", new byte[32],
        new Grant(EnumSet.of(Scope.READ), List.of(new byte[] {'u'})), 9)), 6).apply(new TokenChange.Require(), 7);
    SnapshotText.Decoded decoded = SnapshotText.decode(SnapshotText.encode(MAP, tokens));
    assertThat(ClusterMapCodec.encode(decoded.map())).isEqualTo(ClusterMapCodec.encode(MAP));
    assertThat(decoded.tokens().version()).isEqualTo(7);
    assertThat(decoded.tokens().required()).isTrue();
    assertThat(decoded.tokens().named("app")).isPresent();
  }

  @Test
  void aSnapshotWrittenBeforeTokensIsTheMapAloneAndAnEmptySet() {
    byte[] old = ClusterMapCodec.encode(MAP);
    assertThat(SnapshotText.encode(MAP, TokenSet.EMPTY)).isEqualTo(old);
    SnapshotText.Decoded decoded = SnapshotText.decode(old);
    assertThat(decoded.tokens()).isEqualTo(TokenSet.EMPTY);
    assertThat(ClusterMapCodec.encode(decoded.map())).isEqualTo(old);
  }
}
