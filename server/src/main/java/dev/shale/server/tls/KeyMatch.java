package dev.shale.server.tls;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;

/** Whether a private key is the one of a certificate: it signs, and the certificate's public key verifies. */
final class KeyMatch {
  private static final byte[] PROBE = "shale: does this key belong to this certificate?".getBytes(StandardCharsets.US_ASCII);

  private KeyMatch() {}

  static boolean matches(X509Certificate certificate, PrivateKey key) {
    String algorithm = switch (key.getAlgorithm()) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> null;
    };
    if (algorithm == null || !key.getAlgorithm().equals(certificate.getPublicKey().getAlgorithm())) return false;
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(PROBE);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(PROBE);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
