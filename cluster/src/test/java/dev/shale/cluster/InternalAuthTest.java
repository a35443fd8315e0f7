package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Env;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class InternalAuthTest {
  private static final byte[] SECRET = bytes("0123456789abcdef-secret");
  private static final byte[] HELLO = bytes("a client's HELLO payload, as sent");
  private static final byte[] NONCE = bytes("a server nonce of thirty-two b..");

  private final InternalAuth client = InternalAuth.withSecret(SECRET, Env.real()::wallMillis);
  private final InternalAuth server = InternalAuth.withSecret(SECRET, Env.real()::wallMillis);

  @Test
  void theProofsAreHmacSha256OverTheRoleLabelTheHelloAndTheServerNonce() throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
    mac.update(bytes("shale-peer-v1 server"));
    mac.update(HELLO);
    assertThat(server.serverProof(HELLO, NONCE)).isEqualTo(mac.doFinal(NONCE));
    mac.update(bytes("shale-peer-v1 client"));
    mac.update(HELLO);
    assertThat(client.clientProof(HELLO, NONCE)).isEqualTo(mac.doFinal(NONCE));
  }

  @Test
  void nodesWithTheSameSecretTakeEachOthersProofs() {
    assertThat(client.isServerProof(HELLO, NONCE, server.serverProof(HELLO, NONCE))).isTrue();
    assertThat(server.isClientProof(HELLO, NONCE, client.clientProof(HELLO, NONCE))).isTrue();
    assertThat(server.handshakeMode()).isEqualTo(InternalAuth.MODE_SECRET);
    assertThat(server.takesPeers()).isTrue();
  }

  @Test
  void oneRolesProofIsNeverTakenForTheOthers() {
    byte[] serverProof = server.serverProof(HELLO, NONCE);
    assertThat(serverProof).isNotEqualTo(client.clientProof(HELLO, NONCE));
    assertThat(server.isClientProof(HELLO, NONCE, serverProof)).as("reflected back at the server").isFalse();
    assertThat(client.isServerProof(HELLO, NONCE, client.clientProof(HELLO, NONCE))).isFalse();
  }

  @Test
  void aProofHoldsForItsHelloAndNonceOnly() {
    byte[] proof = client.clientProof(HELLO, NONCE);
    for (int i = 0; i < HELLO.length; i++) {
      assertThat(server.isClientProof(flipped(HELLO, i), NONCE, proof)).as("HELLO byte %d altered", i).isFalse();
    }
    for (int i = 0; i < NONCE.length; i++) {
      assertThat(server.isClientProof(HELLO, flipped(NONCE, i), proof)).as("nonce byte %d altered", i).isFalse();
    }
    assertThat(server.isClientProof(HELLO, NONCE, Arrays.copyOf(proof, proof.length - 1))).as("cut short").isFalse();
  }

  @Test
  void anotherSecretsProofsAndEmptyProofsAreRefused() {
    InternalAuth other = InternalAuth.withSecret(bytes("another-secret-of-16"), Env.real()::wallMillis);
    assertThat(server.isClientProof(HELLO, NONCE, other.clientProof(HELLO, NONCE))).isFalse();
    assertThat(client.isServerProof(HELLO, NONCE, other.serverProof(HELLO, NONCE))).isFalse();
    assertThat(server.isClientProof(HELLO, NONCE, new byte[0])).as("a trusted-network proof").isFalse();
  }

  @Test
  void theSecretIsCopiedWhenGiven() {
    byte[] secret = SECRET.clone();
    InternalAuth auth = InternalAuth.withSecret(secret, Env.real()::wallMillis);
    Arrays.fill(secret, (byte) 0);
    assertThat(auth.serverProof(HELLO, NONCE)).isEqualTo(server.serverProof(HELLO, NONCE));
  }

  @Test
  void aTrustedNetworkSendsEmptyProofsAndTakesAny() {
    InternalAuth trusted = InternalAuth.trustedNetwork();
    assertThat(trusted.serverProof(HELLO, NONCE)).isEmpty();
    assertThat(trusted.clientProof(HELLO, NONCE)).isEmpty();
    assertThat(trusted.isServerProof(HELLO, NONCE, new byte[0])).isTrue();
    assertThat(trusted.isClientProof(HELLO, NONCE, bytes("anything"))).isTrue();
    assertThat(trusted.handshakeMode()).isEqualTo(InternalAuth.MODE_TRUSTED_NETWORK);
    assertThat(trusted.takesPeers()).isTrue();
  }

  @Test
  void aNodeWithoutSecretTakesNoPeers() {
    InternalAuth none = InternalAuth.none();
    assertThat(none.takesPeers()).isFalse();
    assertThatThrownBy(none::handshakeMode).isInstanceOf(IllegalStateException.class);
    assertThat(none.isServerProof(HELLO, NONCE, new byte[0])).isFalse();
    assertThat(none.isClientProof(HELLO, NONCE, new byte[0])).isFalse();
  }

  @Test
  void shortSecretsAreRefused() {
    assertThatThrownBy(() -> InternalAuth.withSecret(new byte[InternalAuth.MIN_SECRET_BYTES - 1], Env.real()::wallMillis))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 16 bytes, not 15");
    assertThat(InternalAuth.withSecret(new byte[InternalAuth.MIN_SECRET_BYTES], Env.real()::wallMillis).takesPeers()).isTrue();
  }

  private static byte[] flipped(byte[] bytes, int index) {
    byte[] copy = bytes.clone();
    copy[index] ^= 1;
    return copy;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
