package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code PUT /v0/entity?id=<id>&ttl=<seconds>} on one node, over real HTTP: expiry, scans, refusals. */
class TtlApiTest {
  @TempDir Path dir;
  TestServer node;

  @BeforeEach
  void start() {
    node = TestServer.start(dir, TestServer.options());
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void aValueWithATtlIsServedWithItsExpiryThenIsGoneFromGetsAndScans() {
    long before = System.currentTimeMillis();
    assertThat(node.put(node.uri("/v0/entity?id=short&ttl=1"), bytes("brief")).statusCode()).isEqualTo(201);
    assertThat(node.put(node.entity("kept"), bytes("forever")).statusCode()).isEqualTo(201);

    HttpResponse<byte[]> live = node.get(node.entity("short"));
    // Unless the machine stalled for the whole second since the PUT, the value is still there;
    // if it did, the rest of the test still holds.
    if (live.statusCode() == 200) {
      assertThat(live.body()).isEqualTo(bytes("brief"));
      long expiresAt = Long.parseLong(live.headers().firstValue("X-Shale-Expires").orElseThrow());
      assertThat(expiresAt).isBetween(before + 1_000, System.currentTimeMillis() + 1_000);
    }
    assertThat(node.get(node.entity("kept")).headers().firstValue("X-Shale-Expires")).isEmpty();

    Await.until("the value with ttl=1 to expire", Duration.ofSeconds(30),
        () -> node.get(node.entity("short")).statusCode() == 404);
    assertThat(node.get(node.entity("short")).headers().firstValue("X-Shale-Expires")).isEmpty();
    assertThat(TestServer.text(node.get(node.uri("/v0/entities?start=a")))).contains("kept").doesNotContain("short");
    assertThat(node.get(node.entity("kept")).statusCode()).isEqualTo(200);
  }

  @Test
  void aPutWithoutTtlReplacesAnExpiringValueForGood() {
    node.put(node.uri("/v0/entity?id=k&ttl=1"), bytes("brief"));
    node.put(node.entity("k"), bytes("lasting"));
    HttpResponse<byte[]> get = node.get(node.entity("k"));
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.body()).isEqualTo(bytes("lasting"));
    assertThat(get.headers().firstValue("X-Shale-Expires")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"ttl=0", "ttl=-1", "ttl=abc", "ttl=", "ttl=1.5", "ttl=+5", "ttl=%201",
      "ttl=99999999999999999999", "ttl=315360001", "ttl=1&ttl=2"})
  void aTtlThatIsNotAPositiveWholeNumberOfSecondsIs400WithAReasonAndStoresNothing(String ttl) {
    HttpResponse<byte[]> put = node.put(node.uri("/v0/entity?id=bad&" + ttl), bytes("v"));
    assertThat(put.statusCode()).as(ttl).isEqualTo(400);
    assertThat(TestServer.text(put)).as(ttl).contains("ttl").doesNotContain("\n\n");
    assertThat(node.get(node.entity("bad")).statusCode()).as(ttl).isEqualTo(404);
  }

  @Test
  void theLongestTtlIsTakenAndTtlOnGetOrDeleteIs400() {
    long before = System.currentTimeMillis();
    assertThat(node.put(node.uri("/v0/entity?id=long&ttl=315360000"), bytes("v")).statusCode()).isEqualTo(201);
    HttpResponse<byte[]> get = node.get(node.entity("long"));
    long expiresAt = Long.parseLong(get.headers().firstValue("X-Shale-Expires").orElseThrow());
    assertThat(expiresAt).isBetween(before + 315_360_000_000L, System.currentTimeMillis() + 315_360_000_000L);
    assertThat(node.get(node.uri("/v0/entity?id=long&ttl=5")).statusCode()).isEqualTo(400);
    assertThat(node.delete(node.uri("/v0/entity?id=long&ttl=5")).statusCode()).isEqualTo(400);
    assertThat(node.get(node.entity("long")).statusCode()).as("the refused DELETE deleted nothing").isEqualTo(200);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
