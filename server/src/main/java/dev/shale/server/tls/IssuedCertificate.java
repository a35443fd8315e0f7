package dev.shale.server.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/** A certificate issued by a {@link CertificateAuthority}, with its private key and the issuer's certificate. */
public record IssuedCertificate(X509Certificate certificate, PrivateKey key, X509Certificate issuer) {
  /** Writes the chain (this certificate, then the issuer's) and the key (PKCS#8 PEM, mode 0600). */
  public void writeTo(Path chainPem, Path keyPem) throws IOException {
    // The key first: a node polling the pair never sees a new certificate with no key for it yet
    // for long (and it keeps its old pair when the two do not match).
    PemFiles.writePrivateKey(keyPem, key);
    PemFiles.writeCertificates(chainPem, List.of(certificate, issuer));
  }
}
