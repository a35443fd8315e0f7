package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class InternalAuthTest {
  private static final long START = 1_800_000_000_000L;
  private static final long NOW = START + 60_000;
  private static final byte[] SECRET = bytes("0123456789abcdef-secret");
  private static final NodeAddress A = new NodeAddress("10.0.0.1", 8080);
  private static final NodeAddress B = new NodeAddress("10.0.0.2", 8080);
  private static final NodeAddress C = new NodeAddress("10.0.0.3", 8080);
  private static final List<NodeAddress> NODES = List.of(A, B, C);
  private static final String TARGET = "/v0/entity?id=a";

  private final InternalAuth a = node(A);
  private final InternalAuth b = node(B);
  private final InternalAuth c = node(C);

  @Test
  void aSignedRequestIsAcceptedOnceAndNamesItsSender() {
    String header = a.sign(() -> put(TARGET, "7", "value"), B, NOW);
    assertThat(b.verify(() -> put(TARGET, "7", "value"), header, NOW + 1000)).isEqualTo(new InternalAuth.Verdict.Accepted(A.id()));
    assertThat(refusal(b, put(TARGET, "7", "value"), header, NOW + 1000)).contains("taken already: a replayed request");
  }

  @Test
  void anAlteredMethodTargetVersionOrBodyBreaksTheSignature() {
    SignedContent genuine = put(TARGET, "7", "value");
    List<SignedContent> altered = List.of(
        SignedContent.of("DELETE", TARGET, "7", new byte[0]),
        put("/v0/entity?id=b", "7", "value"),
        put(TARGET, "8", "value"),
        put(TARGET, "9223372036854775807", "value"),
        put(TARGET, null, "value"),
        put(TARGET, "7", "valuf"),
        put(TARGET, "7", ""));
    for (SignedContent content : altered) {
      String header = a.sign(() -> genuine, B, NOW);
      assertThat(refusal(b, content, header, NOW)).as("%s", content).contains("does not match");
    }
    String noVersion = a.sign(() -> put(TARGET, null, "value"), B, NOW);
    assertThat(refusal(b, put(TARGET, "", "value"), noVersion, NOW)).as("an empty version is not none").contains("does not match");
  }

  @Test
  void aRequestForOneNodeIsRefusedByAnother() {
    String header = a.sign(() -> put(TARGET, "7", "value"), B, NOW);
    assertThat(refusal(c, put(TARGET, "7", "value"), header, NOW)).contains("addressed to " + B.id() + ", not to this node");
    String readdressed = header.replace(" " + B.id() + " ", " " + C.id() + " ");
    assertThat(refusal(c, put(TARGET, "7", "value"), readdressed, NOW)).contains("does not match");
    assertThat(b.verify(() -> put(TARGET, "7", "value"), header, NOW)).isInstanceOf(InternalAuth.Verdict.Accepted.class);
  }

  @Test
  void anotherSenderOrAnUnknownOneIsRefused() {
    String header = a.sign(() -> put(TARGET, "7", "value"), B, NOW);
    String otherSender = header.replace("v2 " + A.id() + " ", "v2 " + C.id() + " ");
    assertThat(refusal(b, put(TARGET, "7", "value"), otherSender, NOW)).contains("does not match");
    String unknown = header.replace("v2 " + A.id() + " ", "v2 10.0.0.9:8080 ");
    assertThat(refusal(b, put(TARGET, "7", "value"), unknown, NOW)).contains("unknown sender '10.0.0.9:8080'");
  }

  @Test
  void anotherSecretIsRefused() {
    InternalAuth other = InternalAuth.withSecret(bytes("another-secret-of-16"), new Topology(NODES, A), START);
    String header = other.sign(() -> SignedContent.of("GET", TARGET), B, NOW);
    assertThat(refusal(b, SignedContent.of("GET", TARGET), header, NOW)).contains("does not match");
  }

  @Test
  void aTamperedSequenceOrTimeBreaksTheSignature() {
    String header = a.sign(() -> SignedContent.of("GET", TARGET), B, NOW);
    String[] parts = header.split(" ");
    String resequenced = header.replace(" " + parts[3] + " ", " " + (Long.parseLong(parts[3]) + 1) + " ");
    assertThat(refusal(b, SignedContent.of("GET", TARGET), resequenced, NOW)).contains("does not match");
    String shifted = header.replace(" " + NOW + " ", " " + (NOW + 1) + " ");
    assertThat(refusal(b, SignedContent.of("GET", TARGET), shifted, NOW)).contains("does not match");
  }

  @Test
  void requestsAreTakenWithinTheTimeWindowOnly() {
    SignedContent get = SignedContent.of("GET", TARGET);
    assertThat(b.verify(() -> get, a.sign(() -> get, B, NOW), NOW + InternalAuth.MAX_SKEW_MILLIS))
        .isInstanceOf(InternalAuth.Verdict.Accepted.class);
    assertThat(b.verify(() -> get, a.sign(() -> get, B, NOW), NOW - InternalAuth.MAX_SKEW_MILLIS))
        .isInstanceOf(InternalAuth.Verdict.Accepted.class);
    assertThat(refusal(b, get, a.sign(() -> get, B, NOW), NOW + InternalAuth.MAX_SKEW_MILLIS + 1)).contains("stale");
    assertThat(refusal(b, get, a.sign(() -> get, B, NOW), NOW - InternalAuth.MAX_SKEW_MILLIS - 1)).contains("stale");
  }

  @Test
  void aRequestSignedBeforeTheReceiverStartedIsRefused() {
    SignedContent get = SignedContent.of("GET", TARGET);
    assertThat(refusal(b, get, a.sign(() -> get, B, START - 1), START + 1000)).contains("before this node started");
    assertThat(b.verify(() -> get, a.sign(() -> get, B, START), START + 1000)).isInstanceOf(InternalAuth.Verdict.Accepted.class);
  }

  @Test
  void requestsReorderedWithinTheWindowAreEachAcceptedOnce() {
    long seed = TestSeed.forTest("InternalAuthTest.requestsReorderedWithinTheWindowAreEachAcceptedOnce");
    Random random = new Random(seed);
    record Signed(SignedContent content, String header) {}
    List<Signed> requests = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      SignedContent content = put("/v0/entity?id=k" + random.nextInt(100), Integer.toString(i), "v" + i);
      requests.add(new Signed(content, a.sign(() -> content, B, NOW)));
    }
    Collections.shuffle(requests, random);
    for (Signed request : requests) {
      assertThat(b.verify(request::content, request.header(), NOW)).as("seed %d", seed).isInstanceOf(InternalAuth.Verdict.Accepted.class);
    }
    for (int i = 0; i < 1000; i++) {
      Signed again = requests.get(random.nextInt(requests.size()));
      assertThat(refusal(b, again.content(), again.header(), NOW)).as("seed %d", seed).contains("replayed request");
    }
  }

  @Test
  void aRestartedSenderContinuesAboveItsEarlierNumbers() {
    SignedContent get = SignedContent.of("GET", TARGET);
    for (int i = 0; i < 100; i++) assertThat(b.verify(() -> get, a.sign(() -> get, B, NOW), NOW)).isInstanceOf(InternalAuth.Verdict.Accepted.class);
    InternalAuth restarted = InternalAuth.withSecret(SECRET, new Topology(NODES, A), NOW + 1);
    assertThat(b.verify(() -> get, restarted.sign(() -> get, B, NOW + 2), NOW + 2)).isInstanceOf(InternalAuth.Verdict.Accepted.class);
  }

  @Test
  void signatureV1AndMalformedHeadersAreRefused() {
    SignedContent get = SignedContent.of("GET", "/");
    assertThat(refusal(b, get, "v1 " + NOW + " abc", NOW)).contains("v1 is not taken", "same build");
    assertThat(refusal(b, get, "trusted", NOW)).contains("is not 'v2 <sender>");
    assertThat(refusal(b, get, "", NOW)).contains("is not 'v2 <sender>");
    assertThat(refusal(b, get, "v2 " + A.id() + " " + B.id() + " 1 soon abc", NOW)).contains("no valid sequence number or time");
    assertThat(refusal(b, get, "v2 " + A.id() + " " + B.id() + " -1 " + NOW + " abc", NOW)).contains("no valid sequence number or time");
  }

  @Test
  void aNodeSignsOnlyForNodesOfItsCluster() {
    assertThatThrownBy(() -> a.sign(() -> SignedContent.of("GET", "/"), new NodeAddress("10.0.0.9", 1), NOW))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a node of this cluster");
  }

  @Test
  void aTrustedNetworkTakesAnyMarkedRequest() {
    InternalAuth trusted = InternalAuth.trustedNetwork();
    assertThat(trusted.verify(() -> { throw new AssertionError("no digest on a trusted network"); }, "anything", NOW))
        .isInstanceOf(InternalAuth.Verdict.Accepted.class);
    assertThat(trusted.sign(() -> { throw new AssertionError("no digest on a trusted network"); }, B, NOW)).isEqualTo("trusted");
  }

  @Test
  void aNodeWithoutSecretTakesNoInternalRequestAndSendsNone() {
    InternalAuth none = InternalAuth.none();
    assertThat(none.verify(() -> SignedContent.of("GET", "/"), "trusted", NOW)).isInstanceOf(InternalAuth.Verdict.Refused.class);
    assertThat(none.canSign()).isFalse();
    assertThatThrownBy(() -> none.sign(() -> SignedContent.of("GET", "/"), B, NOW)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void shortSecretsAreRefused() {
    assertThatThrownBy(() -> InternalAuth.withSecret(bytes("short"), new Topology(NODES, A)))
        .hasMessageContaining("at least 16 bytes");
  }

  private static InternalAuth node(NodeAddress self) {
    return InternalAuth.withSecret(SECRET, new Topology(NODES, self), START);
  }

  private static SignedContent put(String target, @Nullable String version, String body) {
    return SignedContent.of("PUT", target, version, bytes(body));
  }

  private static String refusal(InternalAuth receiver, SignedContent content, String header, long nowMillis) {
    InternalAuth.Verdict verdict = receiver.verify(() -> content, header, nowMillis);
    assertThat(verdict).isInstanceOf(InternalAuth.Verdict.Refused.class);
    return ((InternalAuth.Verdict.Refused) verdict).reason();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
