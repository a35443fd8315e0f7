package dev.shale.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.NodeAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyChangeCodecTest {
  private static final NodeAddress A = new NodeAddress("127.0.0.1", 9001);
  private static final NodeAddress V6 = new NodeAddress("::1", 9002);

  @Test
  void everyChangeComesBackAsItWent() {
    List<TopologyChange> changes = List.of(
        ClusterMapTest.bootstrap(A, V6),
        new TopologyChange.Join(A, "127.0.0.1:19001"),
        new TopologyChange.Join(V6, "[::1]:19002"),
        new TopologyChange.MarkNormal(A),
        new TopologyChange.MarkLeaving(V6),
        new TopologyChange.Remove(A),
        new TopologyChange.Progress(A, "streamed 3 of 7 ranges, 50% = 1 MB"),
        new TopologyChange.Progress(A, ""));
    for (TopologyChange change : changes) {
      assertThat(TopologyChangeCodec.decode(TopologyChangeCodec.encode(change))).isEqualTo(change);
    }
  }

  @Test
  void theLinesAreTheDocumentedOnes() {
    // docs/format.md, "Cluster map": the examples there.
    assertThat(text(ClusterMapTest.bootstrap(A, new NodeAddress("127.0.0.1", 9002))))
        .isEqualTo("bootstrap 3 http://127.0.0.1:9001=127.0.0.1:19001 http://127.0.0.1:9002=127.0.0.1:19002");
    assertThat(text(new TopologyChange.Join(A, "127.0.0.1:19001"))).isEqualTo("join http://127.0.0.1:9001 127.0.0.1:19001");
    assertThat(text(new TopologyChange.Progress(A, "50% done"))).isEqualTo("progress http://127.0.0.1:9001 50%25+done");
  }

  @Test
  void theMapExampleOfTheFormatDocIsWhatTheCodecWrites() {
    // docs/format.md, "Cluster map": bootstrap at index 1, join at 5, progress at 6.
    NodeAddress d = ClusterMapTest.node(9004);
    ClusterMap map = ClusterMapTest.threeNodes().apply(ClusterMapTest.join(d), 5).apply(new TopologyChange.Progress(d, "50% done"), 6);
    assertThat(new String(ClusterMapCodec.encode(map), StandardCharsets.UTF_8)).isEqualTo("""
        shale-cluster-map 2
        version 6
        placement-version 5
        replication-factor 3
        member http://127.0.0.1:9001 127.0.0.1:19001 normal\s
        member http://127.0.0.1:9002 127.0.0.1:19002 normal\s
        member http://127.0.0.1:9003 127.0.0.1:19003 normal\s
        member http://127.0.0.1:9004 127.0.0.1:19004 joining 50%25+done
        """);
  }

  @Test
  void malformedChangesAreRefusedWithTheLine() {
    for (String line : List.of("", "dance http://a:1", "join http://a:1", "join http://a:1 b", "normal x", "remove http://a:1 extra",
        "bootstrap 3", "bootstrap x http://a:1=a:2", "bootstrap 3 http://a:1")) {
      assertThatThrownBy(() -> TopologyChangeCodec.decode(line.getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed topology change '" + line + "'");
    }
  }

  @Test
  void aMapComesBackAsItWent() {
    ClusterMap map = ClusterMapTest.threeNodes()
        .apply(ClusterMapTest.join(ClusterMapTest.node(9009)), 4)
        .apply(new TopologyChange.Progress(ClusterMapTest.node(9009), "half way, 10 MB"), 5);
    byte[] bytes = ClusterMapCodec.encode(map);
    assertThat(ClusterMapCodec.decode(bytes)).isEqualTo(map);
    assertThat(new String(bytes, StandardCharsets.UTF_8)).startsWith("shale-cluster-map 2\nversion 5\nplacement-version 4\nreplication-factor 3\n"
        + "member http://127.0.0.1:9001 127.0.0.1:19001 normal \n");
    assertThat(ClusterMapCodec.decode(ClusterMapCodec.encode(ClusterMap.EMPTY))).isEqualTo(ClusterMap.EMPTY);
    String trimmed = new String(ClusterMapCodec.encode(ClusterMapTest.threeNodes()), StandardCharsets.UTF_8).replace(" \n", "\n");
    assertThat(ClusterMapCodec.decode(trimmed.getBytes(StandardCharsets.UTF_8))).isEqualTo(ClusterMapTest.threeNodes());
  }

  @Test
  void aDamagedMapIsRefused() {
    for (String text : List.of("", "shale-cluster-map 2\nversion 1\nreplication-factor 3\n",
        "shale-cluster-map 1\nversion x\nreplication-factor 3\n", "shale-cluster-map 1\nversion 1\nreplication-factor 3",
        "shale-cluster-map 1\nversion 1\nreplication-factor 3\nmember http://a:1 a:2 resting \n")) {
      assertThatThrownBy(() -> ClusterMapCodec.decode(text.getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  private static String text(TopologyChange change) {
    return new String(TopologyChangeCodec.encode(change), StandardCharsets.UTF_8);
  }
}
