package dev.shale.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateAuthorityTest {
  // A fixed moment: certificates are issued around it and checked at it, never at the clock's now.
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

  @TempDir Path dir;

  @Test
  void aCaIsSelfSignedAndMaySignCertificates() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("Shale CA", T0, T0.plus(Duration.ofDays(3650)));
    X509Certificate certificate = ca.certificate();
    certificate.verify(certificate.getPublicKey());
    assertThat(certificate.getBasicConstraints()).as("basicConstraints CA:true").isGreaterThanOrEqualTo(0);
    assertThat(certificate.getKeyUsage()[5]).as("keyCertSign").isTrue();
    assertThat(certificate.getSubjectX500Principal().getName()).isEqualTo("CN=Shale CA");
    assertThat(certificate.getPublicKey().getAlgorithm()).isEqualTo("EC");
    assertThat(certificate.getSigAlgName()).isEqualTo("SHA256withECDSA");
    assertThat(certificate.getNotBefore().toInstant()).isEqualTo(T0);
    assertThat(certificate.getNotAfter().toInstant()).isEqualTo(T0.plus(Duration.ofDays(3650)));
  }

  @Test
  void aNodeCertificateNamesItsHostsAndServesBothEnds() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("Shale CA", T0, T0.plus(Duration.ofDays(3650)));
    IssuedCertificate node = ca.issueNode("n1", List.of("db1.example.com", "localhost", "127.0.0.1", "::1"),
        T0, T0.plus(Duration.ofDays(365)));

    assertThat(node.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=n1");
    assertThat(node.certificate().getExtendedKeyUsage()).containsExactlyInAnyOrder(SERVER_AUTH, CLIENT_AUTH);
    assertThat(node.certificate().getBasicConstraints()).as("not a CA").isEqualTo(-1);
    assertThat(node.certificate().getSubjectAlternativeNames()).containsExactlyInAnyOrder(
        List.of(2, "db1.example.com"), List.of(2, "localhost"), List.of(7, "127.0.0.1"), List.of(7, "0:0:0:0:0:0:0:1"));
    assertThat(node.issuer()).isEqualTo(ca.certificate());
    assertChainVerifies(List.of(node.certificate()), ca.certificate(), T0.plusSeconds(60));
  }

  @Test
  void aClientCertificateIsForClientsOnly() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("Shale CA", T0, T0.plus(Duration.ofDays(3650)));
    IssuedCertificate client = ca.issueClient("alice", T0, T0.plus(Duration.ofDays(365)));
    assertThat(client.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=alice");
    assertThat(client.certificate().getExtendedKeyUsage()).containsExactly(CLIENT_AUTH);
    assertThat(client.certificate().getSubjectAlternativeNames()).isNull();
    assertChainVerifies(List.of(client.certificate()), ca.certificate(), T0.plusSeconds(60));
  }

  @Test
  void writtenFilesParseBackAndKeysAreTheOwnersOnly() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("Shale CA", T0, T0.plus(Duration.ofDays(3650)));
    ca.writeTo(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    CertificateAuthority loaded = CertificateAuthority.load(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    assertThat(loaded.certificate()).isEqualTo(ca.certificate());

    IssuedCertificate node = loaded.issueNode("n1", List.of("localhost"), T0, T0.plus(Duration.ofDays(365)));
    node.writeTo(dir.resolve("node.crt"), dir.resolve("node.key"));
    List<X509Certificate> chain = PemFiles.readCertificates(dir.resolve("node.crt"));
    assertThat(chain).containsExactly(node.certificate(), ca.certificate());
    assertThat(PemFiles.readPrivateKey(dir.resolve("node.key")).getEncoded()).isEqualTo(node.key().getEncoded());
    assertThat(Files.readString(dir.resolve("node.key"))).startsWith("-----BEGIN PRIVATE KEY-----");
    assertChainVerifies(chain.subList(0, 1), PemFiles.readCertificates(dir.resolve("ca.crt")).getFirst(), T0.plusSeconds(60));

    for (String key : List.of("ca.key", "node.key")) {
      assertThat(Files.getPosixFilePermissions(dir.resolve(key))).as(key).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }
    assertThat(Files.getPosixFilePermissions(dir.resolve("node.crt"))).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ);
  }

  @Test
  void aCertificateOfAnotherCaDoesNotVerify() throws Exception {
    CertificateAuthority ours = CertificateAuthority.create("Shale CA", T0, T0.plus(Duration.ofDays(3650)));
    CertificateAuthority theirs = CertificateAuthority.create("Shale CA", T0, T0.plus(Duration.ofDays(3650)));
    IssuedCertificate node = theirs.issueNode("n1", List.of("localhost"), T0, T0.plus(Duration.ofDays(365)));
    assertThatThrownBy(() -> assertChainVerifies(List.of(node.certificate()), ours.certificate(), T0.plusSeconds(60)))
        .isInstanceOf(CertPathValidatorException.class);
  }

  @Test
  void loadRefusesAKeyOfAnotherCertificateAndANonCa() throws Exception {
    CertificateAuthority one = CertificateAuthority.create("one", T0, T0.plus(Duration.ofDays(10)));
    CertificateAuthority two = CertificateAuthority.create("two", T0, T0.plus(Duration.ofDays(10)));
    one.writeTo(dir.resolve("one.crt"), dir.resolve("one.key"));
    two.writeTo(dir.resolve("two.crt"), dir.resolve("two.key"));
    assertThatThrownBy(() -> CertificateAuthority.load(dir.resolve("one.crt"), dir.resolve("two.key")))
        .isInstanceOf(IOException.class).hasMessageContaining("two.key").hasMessageContaining("is not the private key");

    one.issueClient("c", T0, T0.plus(Duration.ofDays(1))).writeTo(dir.resolve("c.crt"), dir.resolve("c.key"));
    assertThatThrownBy(() -> CertificateAuthority.load(dir.resolve("c.crt"), dir.resolve("c.key")))
        .isInstanceOf(IOException.class).hasMessageContaining("c.crt").hasMessageContaining("not a CA certificate");
  }

  @Test
  void unreadableAndUnparsableFilesAreNamed() throws Exception {
    Files.writeString(dir.resolve("junk.crt"), "not a certificate\n");
    Files.writeString(dir.resolve("bad.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    assertThatThrownBy(() -> PemFiles.readCertificates(dir.resolve("junk.crt"))).isInstanceOf(IOException.class)
        .hasMessageContaining("junk.crt").hasMessageContaining("no PEM certificate");
    assertThatThrownBy(() -> PemFiles.readCertificates(dir.resolve("bad.crt"))).isInstanceOf(IOException.class)
        .hasMessageContaining("bad.crt");
    assertThatThrownBy(() -> PemFiles.readCertificates(dir.resolve("missing.crt"))).isInstanceOf(IOException.class)
        .hasMessageContaining("missing.crt");
    assertThatThrownBy(() -> PemFiles.readPrivateKey(dir.resolve("junk.crt"))).isInstanceOf(IOException.class)
        .hasMessageContaining("junk.crt");
  }

  @Test
  void badNamesAndValiditiesAreRefused() {
    CertificateAuthority ca = CertificateAuthority.create("Shale CA", T0, T0.plus(Duration.ofDays(10)));
    assertThatThrownBy(() -> ca.issueNode("n1", List.of("not a host"), T0, T0.plusSeconds(60)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("not a host name or IP address: 'not a host'");
    assertThatThrownBy(() -> ca.issueNode("n1", List.of("300.1.1.1"), T0, T0.plusSeconds(60)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("300.1.1.1");
    assertThatThrownBy(() -> ca.issueClient("c", T0, T0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must end after it starts");
    assertThatThrownBy(() -> CertificateAuthority.create(" ", T0, T0.plusSeconds(1))).isInstanceOf(IllegalArgumentException.class);
  }

  static void assertChainVerifies(List<X509Certificate> chain, X509Certificate trusted, Instant at) throws Exception {
    PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(trusted, null)));
    parameters.setRevocationEnabled(false);
    parameters.setDate(Date.from(at));
    CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509").generateCertPath(chain), parameters);
  }
}
