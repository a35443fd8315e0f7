package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Env;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class AdminSignaturesTest {
  private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final String COMPACT = "/v0/admin/compact";
  private static final long T0 = 1_764_000_000_000L;
  private static final byte[] NO_BODY = new byte[0];

  private final AtomicLong now = new AtomicLong(T0);
  private final AdminSignatures node = AdminSignatures.withSecret(SECRET, now::get);

  @Test
  void signsAsTheFormatDocsWorkedExampleSays() {
    AdminSignatures.Signed signed = node.sign("POST", COMPACT, NO_BODY, T0, "00112233445566778899aabbccddeeff");

    assertThat(signed.time()).isEqualTo("1764000000000");
    assertThat(signed.signature()).isEqualTo("6544241fc40b0f69185f5a94c1c896946575a2858e66c50a505f4c1a980050f0");
  }

  @Test
  void acceptsARequestSignedWithTheSecret() {
    AdminSignatures cli = AdminSignatures.withSecret(SECRET, Env.real()::wallMillis);
    AdminSignatures.Signed signed = cli.sign("POST", COMPACT + "?level=1", NO_BODY, T0 - 59_000, "nonce-nonce-nonce-1");

    assertThat(node.refusal("POST", COMPACT + "?level=1", NO_BODY, headers(signed))).isNull();
  }

  /**
   * A target is signed as sent, and as sent it is ASCII. One holding any other byte (0x80 in
   * place of the '?' of a signed target, which a lossy encoding turned back into '?') is refused
   * before the signature is compared, whatever it would match.
   */
  @Test
  void refusesATargetThatIsNotPrintableAscii() {
    AdminSignatures cli = AdminSignatures.withSecret(SECRET, Env.real()::wallMillis);
    String signedTarget = "/v0/admin/snapshot?name=x";
    for (char odd : new char[] {'\u0080', '\uFFFD', '\u00FF', ' ', '\u007F'}) {
      AdminSignatures.Signed signed = cli.sign("POST", signedTarget, NO_BODY, T0, "nonce-nonce-nonce-" + (int) odd);
      String sent = signedTarget.replace('?', odd);
      assertThat(node.refusal("POST", sent, NO_BODY, headers(signed)))
          .as("target with U+%04X", (int) odd).isNotNull().contains("printable ASCII");
    }
  }

  @Test
  void refusesAnUnsignedRequestNamingTheHeaders() {
    assertThat(node.refusal("POST", COMPACT, NO_BODY, name -> List.of()))
        .contains("must be signed with the cluster secret").contains(AdminSignatures.SIGNATURE_HEADER);
  }

  @Test
  void refusesASignatureMadeWithAnotherSecret() {
    AdminSignatures forger = AdminSignatures.withSecret("another secret, 16 bytes or more".getBytes(StandardCharsets.UTF_8), now::get);

    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(forger.sign("POST", COMPACT, NO_BODY))))
        .contains("signature does not match");
  }

  @Test
  void refusesARequestChangedAfterSigning() {
    AdminSignatures.Signed signed = node.sign("POST", COMPACT, NO_BODY);

    assertThat(node.refusal("POST", COMPACT + "?x=1", NO_BODY, headers(signed))).contains("signature does not match");
    assertThat(node.refusal("GET", COMPACT, NO_BODY, headers(signed))).contains("signature does not match");
    assertThat(node.refusal("POST", COMPACT, new byte[] {1}, headers(signed))).contains("signature does not match");
    assertThat(node.refusal("POST", "/v0/admin/repair", NO_BODY, headers(signed))).contains("signature does not match");
  }

  @Test
  void refusesATimeMoreThanTheWindowOffEitherWay() {
    AdminSignatures.Signed stale = node.sign("POST", COMPACT, NO_BODY, T0 - 60_001, "stale-stale-stale-1");
    AdminSignatures.Signed ahead = node.sign("POST", COMPACT, NO_BODY, T0 + 60_001, "ahead-ahead-ahead-1");
    AdminSignatures.Signed edge = node.sign("POST", COMPACT, NO_BODY, T0 + 60_000, "edge-edge-edge-edge");

    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(stale))).contains("60001 ms from this node's time");
    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(ahead))).contains("-60001 ms from this node's time");
    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(edge))).isNull();
  }

  @Test
  void refusesAReplayWhileItsTimeIsAcceptedAndTheTimeAfter() {
    AdminSignatures.Signed signed = node.sign("POST", COMPACT, NO_BODY);
    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(signed))).isNull();

    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(signed))).contains("replayed");
    now.addAndGet(AdminSignatures.WINDOW_MILLIS);
    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(signed))).contains("replayed");
    now.addAndGet(1);
    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(signed))).contains("ms from this node's time");
  }

  @Test
  void aForgedRequestDoesNotUseUpItsNonce() {
    AdminSignatures.Signed signed = node.sign("POST", COMPACT, NO_BODY);
    AdminSignatures.Signed forged = new AdminSignatures.Signed(signed.time(), signed.nonce(), "0".repeat(64));

    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(forged))).contains("signature does not match");
    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(signed))).isNull();
  }

  @Test
  void refusesMalformedOrRepeatedHeaders() {
    AdminSignatures.Signed signed = node.sign("POST", COMPACT, NO_BODY);
    Map<String, List<String>> twoTimes = new HashMap<>(asMap(signed));
    twoTimes.put(AdminSignatures.TIME_HEADER, List.of(signed.time(), signed.time()));
    Map<String, List<String>> shortNonce = new HashMap<>(asMap(signed));
    shortNonce.put(AdminSignatures.NONCE_HEADER, List.of("abc"));
    Map<String, List<String>> upperCase = new HashMap<>(asMap(signed));
    upperCase.put(AdminSignatures.SIGNATURE_HEADER, List.of(signed.signature().toUpperCase(java.util.Locale.ROOT)));
    Map<String, List<String>> noSignature = new HashMap<>(asMap(signed));
    noSignature.remove(AdminSignatures.SIGNATURE_HEADER);

    assertThat(node.refusal("POST", COMPACT, NO_BODY, lookup(twoTimes))).contains("exactly one X-Shale-Admin-Time header, not 2");
    assertThat(node.refusal("POST", COMPACT, NO_BODY, lookup(shortNonce))).contains("X-Shale-Admin-Nonce is malformed");
    assertThat(node.refusal("POST", COMPACT, NO_BODY, lookup(upperCase))).contains("X-Shale-Admin-Signature is malformed");
    assertThat(node.refusal("POST", COMPACT, NO_BODY, lookup(noSignature))).contains("exactly one X-Shale-Admin-Signature header, not 0");
  }

  @Test
  void refusesNewRequestsOnceTheNonceCacheIsFullUntilSomeExpire() {
    for (int i = 0; i < AdminSignatures.MAX_NONCES; i++) {
      assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(node.sign("POST", COMPACT, NO_BODY)))).isNull();
    }
    AdminSignatures.Signed oneMore = node.sign("POST", COMPACT, NO_BODY);
    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(oneMore))).contains("retry later");

    now.addAndGet(AdminSignatures.WINDOW_MILLIS + 1);
    assertThat(node.refusal("POST", COMPACT, NO_BODY, headers(node.sign("POST", COMPACT, NO_BODY)))).isNull();
  }

  @Test
  void refusesAShortSecret() {
    assertThatThrownBy(() -> AdminSignatures.withSecret(new byte[15], Env.real()::wallMillis))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 16 bytes");
  }

  @Test
  void aNodeWithASecretChecksAdminRequestsAndOthersDoNot() {
    assertThat(InternalAuth.withSecret(SECRET, Env.real()::wallMillis).adminSignatures()).isNotNull();
    assertThat(InternalAuth.trustedNetwork().adminSignatures()).isNull();
    assertThat(InternalAuth.none().adminSignatures()).isNull();
  }

  private static Function<String, List<String>> headers(AdminSignatures.Signed signed) {
    return lookup(asMap(signed));
  }

  private static Map<String, List<String>> asMap(AdminSignatures.Signed signed) {
    return Map.of(AdminSignatures.TIME_HEADER, List.of(signed.time()), AdminSignatures.NONCE_HEADER, List.of(signed.nonce()),
        AdminSignatures.SIGNATURE_HEADER, List.of(signed.signature()));
  }

  private static Function<String, List<String>> lookup(Map<String, List<String>> headers) {
    return name -> headers.getOrDefault(name, List.of());
  }
}
