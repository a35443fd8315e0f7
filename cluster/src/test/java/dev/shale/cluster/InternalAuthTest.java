package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InternalAuthTest {
  private static final long NOW = 1_800_000_000_000L;
  private final InternalAuth auth = InternalAuth.withSecret(bytes("0123456789abcdef-secret"));

  @Test
  void aSignedRequestIsAccepted() {
    String header = auth.sign("GET", "/v0/entity?id=a", NOW);
    assertThat(auth.refusal("GET", "/v0/entity?id=a", header, NOW + 1000)).isEmpty();
  }

  @Test
  void anotherMethodTargetOrTimeBreaksTheSignature() {
    String header = auth.sign("GET", "/v0/entity?id=a", NOW);
    assertThat(auth.refusal("DELETE", "/v0/entity?id=a", header, NOW)).get().asString().contains("does not match");
    assertThat(auth.refusal("GET", "/v0/entity?id=b", header, NOW)).get().asString().contains("does not match");
    String shifted = header.replace(" " + NOW + " ", " " + (NOW + 1) + " ");
    assertThat(auth.refusal("GET", "/v0/entity?id=a", shifted, NOW)).get().asString().contains("does not match");
  }

  @Test
  void anotherSecretIsRefused() {
    InternalAuth other = InternalAuth.withSecret(bytes("another-secret-of-16"));
    String header = other.sign("GET", "/v0/entity?id=a", NOW);
    assertThat(auth.refusal("GET", "/v0/entity?id=a", header, NOW)).get().asString().contains("does not match");
  }

  @Test
  void staleOrFutureRequestsAreRefused() {
    String header = auth.sign("PUT", "/v0/entity?id=a", NOW);
    assertThat(auth.refusal("PUT", "/v0/entity?id=a", header, NOW + InternalAuth.MAX_SKEW_MILLIS)).isEmpty();
    assertThat(auth.refusal("PUT", "/v0/entity?id=a", header, NOW + InternalAuth.MAX_SKEW_MILLIS + 1))
        .get().asString().contains("stale");
    assertThat(auth.refusal("PUT", "/v0/entity?id=a", header, NOW - InternalAuth.MAX_SKEW_MILLIS - 1))
        .get().asString().contains("stale");
  }

  @Test
  void malformedHeadersAreRefused() {
    assertThat(auth.refusal("GET", "/", "trusted", NOW)).get().asString().contains("is not 'v1");
    assertThat(auth.refusal("GET", "/", "v1 soon abc", NOW)).get().asString().contains("no valid time");
    assertThat(auth.refusal("GET", "/", "", NOW)).isPresent();
  }

  @Test
  void aTrustedNetworkTakesAnyMarkedRequest() {
    InternalAuth trusted = InternalAuth.trustedNetwork();
    assertThat(trusted.refusal("GET", "/", "anything", NOW)).isEmpty();
    assertThat(trusted.sign("GET", "/", NOW)).isEqualTo("trusted");
  }

  @Test
  void aNodeWithoutSecretTakesNoInternalRequestAndSendsNone() {
    InternalAuth none = InternalAuth.none();
    assertThat(none.refusal("GET", "/", "trusted", NOW)).isPresent();
    assertThat(none.canSign()).isFalse();
    assertThatThrownBy(() -> none.sign("GET", "/", NOW)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void shortSecretsAreRefused() {
    assertThatThrownBy(() -> InternalAuth.withSecret(bytes("short"))).hasMessageContaining("at least 16 bytes");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
