package dev.shale.server.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import org.bouncycastle.asn1.x509.KeyPurposeId;

/**
 * A certificate authority: a self-signed CA certificate and its private key, which issues the
 * certificates of nodes and clients ({@code shale certs}). A cluster trusts one CA (or, during a
 * rotation, two): a node accepts peers and, with {@code --tls-client-ca}, clients whose
 * certificates it issued. Immutable; safe to share between threads.
 */
public final class CertificateAuthority {
  private final X509Certificate certificate;
  private final PrivateKey key;

  private CertificateAuthority(X509Certificate certificate, PrivateKey key) {
    this.certificate = certificate;
    this.key = key;
  }

  /** A new self-signed CA (basicConstraints CA:true, keyCertSign), valid over [notBefore, notAfter]. */
  public static CertificateAuthority create(String commonName, Instant notBefore, Instant notAfter) {
    KeyPair keys = CertificateBuilder.newKeyPair();
    return new CertificateAuthority(
        CertificateBuilder.selfSignedCa(CertificateBuilder.commonName(commonName), keys, notBefore, notAfter), keys.getPrivate());
  }

  /** Reads a CA written by writeTo (PEM certificate, PEM PKCS#8 key); IOException with the file named. */
  public static CertificateAuthority load(Path certificatePem, Path keyPem) throws IOException {
    List<X509Certificate> certificates = PemFiles.readCertificates(certificatePem);
    X509Certificate certificate = certificates.getFirst();
    if (certificate.getBasicConstraints() < 0) {
      throw new IOException(certificatePem + " is not a CA certificate (basicConstraints CA:false): "
          + certificate.getSubjectX500Principal().getName());
    }
    PrivateKey key = PemFiles.readPrivateKey(keyPem);
    if (!KeyMatch.matches(certificate, key)) {
      throw new IOException(keyPem + " is not the private key of the certificate in " + certificatePem);
    }
    return new CertificateAuthority(certificate, key);
  }

  public X509Certificate certificate() {
    return certificate;
  }

  /** A node certificate: CN=nodeName, SANs = each name (DNS) or address (IP), EKU serverAuth+clientAuth. */
  public IssuedCertificate issueNode(String nodeName, List<String> hostNamesAndAddresses, Instant notBefore, Instant notAfter) {
    // Both purposes: a node serves its port and dials its peers with the same certificate.
    return issue(nodeName, hostNamesAndAddresses, List.of(KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth),
        notBefore, notAfter);
  }

  /** A client certificate: CN=clientName, EKU clientAuth. */
  public IssuedCertificate issueClient(String clientName, Instant notBefore, Instant notAfter) {
    return issue(clientName, List.of(), List.of(KeyPurposeId.id_kp_clientAuth), notBefore, notAfter);
  }

  /** Writes the CA's certificate and its key (the key file mode 0600). */
  public void writeTo(Path certificatePem, Path keyPem) throws IOException {
    PemFiles.writePrivateKey(keyPem, key);
    PemFiles.writeCertificates(certificatePem, List.of(certificate));
  }

  private IssuedCertificate issue(String name, List<String> hostNamesAndAddresses, List<KeyPurposeId> purposes,
      Instant notBefore, Instant notAfter) {
    KeyPair keys = CertificateBuilder.newKeyPair();
    X509Certificate issued = CertificateBuilder.endEntity(CertificateBuilder.commonName(name), keys.getPublic(),
        hostNamesAndAddresses, purposes, certificate, key, notBefore, notAfter);
    return new IssuedCertificate(issued, keys.getPrivate(), certificate);
  }
}
