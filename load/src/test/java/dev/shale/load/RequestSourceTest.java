package dev.shale.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The requests a load run sends carry its API token, and only when it has one. */
class RequestSourceTest {
  private static final LoadSpec SPEC = new LoadSpec(URI.create("http://127.0.0.1:8080"), Workload.MIXED, 100, 1, 1,
      Duration.ofSeconds(1), Duration.ZERO, 10, 100, LoadSpec.KeyDistribution.UNIFORM, LoadSpec.KeyOrder.SEQUENTIAL,
      Duration.ofSeconds(1), 42);

  @Test
  void everyRequestCarriesTheTokenWhenTheRunHasOne() {
    RequestSource withToken = new RequestSource(SPEC.withToken("shale_t0ken"), 0, null, new ValuePool(10, 1));
    RequestSource without = new RequestSource(SPEC, 0, null, new ValuePool(10, 1));
    for (int i = 0; i < 10; i++) {
      FullHttpRequest request = withToken.next();
      assertThat(request.headers().get(HttpHeaderNames.AUTHORIZATION)).isEqualTo("Bearer shale_t0ken");
      request.release();
      FullHttpRequest plain = without.next();
      assertThat(plain.headers().contains(HttpHeaderNames.AUTHORIZATION)).isFalse();
      plain.release();
    }
    assertThat(SPEC.withToken("shale_t0ken").toString()).doesNotContain("shale_t0ken");
  }
}
