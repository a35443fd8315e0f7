package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class TopologyTest {
  private static final List<String> THREE = List.of("http://127.0.0.1:8082", "http://127.0.0.1:8080", "http://127.0.0.1:8081");

  @Test
  void findsThisNodeAndSortsTheNodes() {
    Topology topology = Topology.fromUrls(THREE, "127.0.0.1", 8081);
    assertThat(topology.self()).isEqualTo(new NodeAddress("127.0.0.1", 8081));
    assertThat(topology.nodes()).extracting(NodeAddress::port).containsExactly(8080, 8081, 8082);
    assertThat(topology.peers()).extracting(NodeAddress::port).containsExactly(8080, 8082);
    assertThat(topology.isSingle()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:8080", "http://127.0.0.1:8080/", "HTTP://127.0.0.1:8080", "http://localhost:8080"})
  void thisNodesOwnUrlAloneIsASingleNode(String url) {
    Topology topology = Topology.fromUrls(List.of(url), "127.0.0.1", 8080);
    assertThat(topology.isSingle()).isTrue();
    assertThat(topology.self().port()).isEqualTo(8080);
  }

  @Test
  void anyAddressOfThisMachineMatchesWhenListeningOnAll() {
    assertThat(Topology.fromUrls(THREE, "0.0.0.0", 8082).self().port()).isEqualTo(8082);
  }

  @Test
  void defaultPortIs80() {
    assertThat(Topology.fromUrls(List.of("http://127.0.0.1"), "127.0.0.1", 80).self().port()).isEqualTo(80);
  }

  @Test
  void aListWithoutThisNodeIsRefused() {
    assertThatThrownBy(() -> Topology.fromUrls(THREE, "127.0.0.1", 9000))
        .hasMessageStartingWith("--cluster must name this node, http://127.0.0.1:9000");
  }

  @Test
  void duplicatesAreRefused() {
    assertThatThrownBy(() -> Topology.fromUrls(List.of("http://127.0.0.1:8080", "http://127.0.0.1:8080/"), "127.0.0.1", 8080))
        .hasMessage("--cluster names http://127.0.0.1:8080 twice");
  }

  @Test
  void twoNamesOfThisNodeAreRefused() {
    assertThatThrownBy(() -> Topology.fromUrls(List.of("http://127.0.0.1:8080", "http://localhost:8080"), "127.0.0.1", 8080))
        .hasMessageContaining("more than once");
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1:8080", "https://127.0.0.1:8080", "http://127.0.0.1:8080/v0", "http://u@127.0.0.1:8080", "http://[oops", ""})
  void malformedUrlsAreRefusedWithTheUrl(String url) {
    assertThatThrownBy(() -> Topology.fromUrls(List.of("http://127.0.0.1:8080", url), "127.0.0.1", 8080))
        .hasMessageStartingWith("--cluster: '" + url + "'");
  }

  @Test
  void anEmptyListIsRefused() {
    assertThatThrownBy(() -> Topology.fromUrls(List.of(), "127.0.0.1", 8080)).hasMessageContaining("empty");
  }
}
