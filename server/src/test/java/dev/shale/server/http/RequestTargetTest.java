package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestTargetTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "NULL", value = {
      "/v0/entity?id=a|/v0/entity|id=a",
      "/v0/entity|/v0/entity|NULL",
      "/v0/entity?|/v0/entity|''",
      "/v0/entity?id=a?b|/v0/entity|id=a?b",
      "http://host:8080/v0/entity?id=a|/v0/entity|id=a",
      "HTTP://host/v0/status|/v0/status|NULL",
      "http://host|/|NULL",
      "http://host?id=a|/|id=a",
      "*|*|NULL",
  })
  void splitsPathAndQuery(String target, String path, String query) {
    assertThat(RequestTarget.parse(target)).isEqualTo(new RequestTarget(path, query));
  }
}
