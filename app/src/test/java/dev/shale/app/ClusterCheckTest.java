package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClusterCheckTest {

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:8080", "http://127.0.0.1:8080/", "HTTP://127.0.0.1:8080", "http://localhost:8080"})
  void thisNodesOwnUrlIsAccepted(String url) {
    assertThat(ClusterCheck.problem(List.of(url), "127.0.0.1", 8080)).isNull();
  }

  @Test
  void defaultPortIs80() {
    assertThat(ClusterCheck.problem(List.of("http://127.0.0.1"), "127.0.0.1", 80)).isNull();
  }

  @Test
  void anyLocalAddressMatchesWhenListeningOnAll() {
    assertThat(ClusterCheck.problem(List.of("http://127.0.0.1:8080"), "0.0.0.0", 8080)).isNull();
  }

  @Test
  void otherPortIsRefused() {
    assertThat(ClusterCheck.problem(List.of("http://127.0.0.1:8081"), "127.0.0.1", 8080))
        .startsWith("--cluster must name this node, http://127.0.0.1:8080, not http://127.0.0.1:8081");
  }

  @Test
  void otherHostIsRefused() {
    assertThat(ClusterCheck.problem(List.of("http://10.255.255.1:8080"), "127.0.0.1", 8080))
        .startsWith("--cluster must name this node");
  }

  @Test
  void severalUrlsAreRefusedEvenIfOneIsThisNode() {
    assertThat(ClusterCheck.problem(List.of("http://127.0.0.1:8080", "http://127.0.0.1:8081"), "127.0.0.1", 8080))
        .startsWith("multi-node clusters are not supported yet: --cluster lists 2 URLs");
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1:8080", "https://127.0.0.1:8080", "http://127.0.0.1:8080/v0", "http://u@127.0.0.1:8080", "http://[oops", ""})
  void malformedUrlIsRefusedWithTheUrl(String url) {
    assertThat(ClusterCheck.problem(List.of(url), "127.0.0.1", 8080)).startsWith("--cluster: '" + url + "'");
  }

  @Test
  void emptyListIsRefused() {
    assertThat(ClusterCheck.problem(List.of(), "127.0.0.1", 8080)).contains("empty");
  }
}
