package dev.shale.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The proofs of the internode handshake (docs/format.md, "Internode protocol"): HMAC-SHA256
 * under the cluster secret over a role label, the client's HELLO payload as sent and the
 * server's nonce. The labels differ by role, so a server's proof is never a client's: a stranger
 * cannot reflect one side's proof back at it.
 *
 * <p>Thread safe.
 */
final class HandshakeProofs {
  // Do not change: part of protocol version 1.
  private static final byte[] SERVER_LABEL = "shale-peer-v1 server".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLIENT_LABEL = "shale-peer-v1 client".getBytes(StandardCharsets.US_ASCII);

  // Mac instances are not thread safe; event loops each get their own.
  private final ThreadLocal<Mac> macs;

  HandshakeProofs(byte[] secret) {
    SecretKeySpec key = HmacSha256.key(secret);
    this.macs = ThreadLocal.withInitial(() -> HmacSha256.newMac(key));
  }

  byte[] server(byte[] hello, byte[] serverNonce) {
    return mac(SERVER_LABEL, hello, serverNonce);
  }

  byte[] client(byte[] hello, byte[] serverNonce) {
    return mac(CLIENT_LABEL, hello, serverNonce);
  }

  /** Constant-time: how far a guess matched says nothing. */
  static boolean matches(byte[] expected, byte[] proof) {
    return MessageDigest.isEqual(expected, proof);
  }

  private byte[] mac(byte[] label, byte[] hello, byte[] serverNonce) {
    Mac mac = macs.get();
    mac.update(label);
    mac.update(hello);
    return mac.doFinal(serverNonce);
  }
}
