package dev.shale.cluster;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256, the MAC of the handshake proofs and the admin signatures. */
final class HmacSha256 {
  static final String ALGORITHM = "HmacSHA256";

  private HmacSha256() {}

  /** A key for {@link #newMac}; holds a copy of {@code key}. */
  static SecretKeySpec key(byte[] key) {
    return new SecretKeySpec(key.clone(), ALGORITHM);
  }

  /** A Mac initialised with {@code key}; a Mac is not thread safe, so each thread needs its own. */
  static Mac newMac(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available in this JDK", e);
    }
  }
}
