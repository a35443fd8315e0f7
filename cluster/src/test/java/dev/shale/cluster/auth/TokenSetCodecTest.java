package dev.shale.cluster.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stored token set and the token changes, byte for byte as docs/format.md says, and the set's rules. */
class TokenSetCodecTest {
  // docs/format.md, "API tokens": the example, verbatim.
  private static final String EXAMPLE = """
      shale-tokens 1
      version 12
      token ops 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 admin,metrics 1764309600000
      token reader 60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752 read 1764309600000 757365722f
      """;

  @Test
  void theFormatsExampleDecodesAndEncodesBackByteForByte() {
    TokenSet set = TokenSetCodec.decode(EXAMPLE.getBytes(StandardCharsets.UTF_8));
    assertThat(set.version()).isEqualTo(12);
    ApiToken reader = set.named("reader").orElseThrow();
    assertThat(reader.scopes()).containsExactly(Scope.READ);
    assertThat(reader.grant().prefixes()).singleElement().isEqualTo("user/".getBytes(StandardCharsets.UTF_8));
    assertThat(set.named("ops").orElseThrow().scopes()).containsExactlyInAnyOrder(Scope.ADMIN, Scope.METRICS);
    assertThat(new String(TokenSetCodec.encode(set), StandardCharsets.UTF_8)).isEqualTo(EXAMPLE);
  }

  @Test
  void changesRoundTripAndTheSetFindsATokenByItsSecretOnly() {
    String secret = TokenSecrets.newSecret(new SecureRandom());
    assertThat(secret).startsWith("shale_").hasSize(49);
    ApiToken token = new ApiToken("app", TokenSecrets.hash(secret), new Grant(EnumSet.of(Scope.READ, Scope.WRITE),
        List.of(new byte[] {0, (byte) 0xff})), 5);
    TokenChange add = TokenSetCodec.decodeChange(TokenSetCodec.encode(new TokenChange.Add(token)));
    assertThat(new String(TokenSetCodec.encode(add), StandardCharsets.UTF_8)).doesNotContain(secret)
        .startsWith("token-add app ").endsWith(" read,write 5 00ff");
    TokenSet set = TokenSet.EMPTY.apply(add, 3);
    assertThat(set.find(TokenSecrets.hash(secret))).isNotNull();
    assertThat(set.find(TokenSecrets.hash(secret + "x"))).isNull();
    assertThatThrownBy(() -> set.apply(add, 4)).isInstanceOf(TokenChangeRefused.class).hasMessageContaining("exists already");
    assertThat(set.apply(TokenSetCodec.decodeChange("token-revoke app".getBytes(StandardCharsets.UTF_8)), 4).tokens()).isEmpty();
    assertThatThrownBy(() -> TokenSet.EMPTY.apply(new TokenChange.Revoke("app"), 1)).isInstanceOf(TokenChangeRefused.class);
    assertThat(TokenSetCodec.isChange("token-revoke app".getBytes(StandardCharsets.UTF_8))).isTrue();
    assertThat(TokenSetCodec.isChange("join http://a:1 a:2".getBytes(StandardCharsets.UTF_8))).isFalse();
  }

  @Test
  void aRequiringSetKeepsItsMarkAndTakesItOnce() {
    TokenSet required = TokenSet.EMPTY.apply(TokenSetCodec.decodeChange("token-require".getBytes(StandardCharsets.UTF_8)), 7);
    assertThat(required.required()).isTrue();
    String text = new String(TokenSetCodec.encode(required), StandardCharsets.UTF_8);
    assertThat(text).isEqualTo("shale-tokens 1\nversion 7\nrequired\n");
    assertThat(TokenSetCodec.decode(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(required);
    assertThatThrownBy(() -> required.apply(new TokenChange.Require(), 8)).isInstanceOf(TokenChangeRefused.class);
    assertThat(required.apply(new TokenChange.Add(new ApiToken("a", new byte[32], new Grant(EnumSet.of(Scope.READ), List.of()), 1)), 8)
        .required()).as("kept by later changes").isTrue();
  }

  @Test
  void malformedTextIsRefusedWithAReason() {
    assertThatThrownBy(() -> TokenSetCodec.decodeChange("token-add x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed token change");
    assertThatThrownBy(() -> TokenSetCodec.decode("shale-tokens 2\nversion 1\n".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("not a token set");
    assertThatThrownBy(() -> Scope.parse("read,root")).hasMessageContaining("unknown scope 'root'");
    assertThatThrownBy(() -> ApiToken.checkName("a b")).hasMessageContaining("token name");
  }
}
