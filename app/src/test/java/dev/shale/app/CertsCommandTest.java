package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.server.tls.PemFiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shale certs ca|node|client}: the files they write, and what they refuse. */
class CertsCommandTest {
  @TempDir Path dir;
  StringWriter out = new StringWriter();
  StringWriter err = new StringWriter();

  int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void aCaThenANodeAndAClientMakeFilesThatChainToTheCa() throws Exception {
    Path certs = dir.resolve("certs");
    assertThat(run("certs", "ca", "--dir", certs.toString())).as(err.toString()).isZero();
    assertThat(out.toString()).contains("wrote " + certs.resolve("ca.crt")).contains("subject CN=Shale CA");
    assertThat(run("certs", "node", "--dir", certs.toString(), "--name", "n1", "--host", "db1.example.com,127.0.0.1",
        "--host", "localhost")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("names db1.example.com, 127.0.0.1, localhost");
    assertThat(run("certs", "client", "--dir", certs.toString(), "--name", "alice", "--days", "30")).as(err.toString()).isZero();

    X509Certificate ca = PemFiles.readCertificates(certs.resolve("ca.crt")).getFirst();
    assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
    assertThat(days(ca)).isEqualTo(Duration.ofDays(3650).plus(CertsDirectory.BACKDATE));

    List<X509Certificate> node = PemFiles.readCertificates(certs.resolve("node.n1.crt"));
    assertThat(node).hasSize(2).element(1).isEqualTo(ca);
    assertThat(node.getFirst().getSubjectX500Principal().getName()).isEqualTo("CN=n1");
    assertThat(node.getFirst().getSubjectAlternativeNames()).containsExactlyInAnyOrder(
        List.of(2, "db1.example.com"), List.of(7, "127.0.0.1"), List.of(2, "localhost"));
    assertThat(node.getFirst().getExtendedKeyUsage()).containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
    assertThat(days(node.getFirst())).isEqualTo(Duration.ofDays(365).plus(CertsDirectory.BACKDATE));
    verify(node.getFirst(), ca);

    X509Certificate client = PemFiles.readCertificates(certs.resolve("client.alice.crt")).getFirst();
    assertThat(client.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
    assertThat(days(client)).isEqualTo(Duration.ofDays(30).plus(CertsDirectory.BACKDATE));
    verify(client, ca);

    for (String key : List.of("ca.key", "node.n1.key", "client.alice.key")) {
      assertThat(PemFiles.readPrivateKey(certs.resolve(key)).getAlgorithm()).isEqualTo("EC");
      assertThat(Files.getPosixFilePermissions(certs.resolve(key))).as(key).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }
  }

  @Test
  void anExistingKeyIsKeptUnlessOverwriteIsGiven() throws Exception {
    assertThat(run("certs", "ca", "--dir", dir.toString())).isZero();
    assertThat(run("certs", "node", "--dir", dir.toString(), "--name", "n1", "--host", "localhost")).isZero();
    String caKey = Files.readString(dir.resolve("ca.key"));
    String nodeKey = Files.readString(dir.resolve("node.n1.key"));

    assertThat(run("certs", "ca", "--dir", dir.toString())).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("shale: " + dir.resolve("ca.key") + " exists; pass --overwrite to replace it (the old key is then lost)\n");
    assertThat(run("certs", "node", "--dir", dir.toString(), "--name", "n1", "--host", "localhost")).isEqualTo(1);
    assertThat(err.toString()).startsWith("shale: " + dir.resolve("node.n1.key") + " exists; pass --overwrite").hasLineCount(1);
    assertThat(Files.readString(dir.resolve("ca.key"))).isEqualTo(caKey);
    assertThat(Files.readString(dir.resolve("node.n1.key"))).isEqualTo(nodeKey);

    assertThat(run("certs", "node", "--dir", dir.toString(), "--name", "n1", "--host", "localhost", "--overwrite")).isZero();
    assertThat(Files.readString(dir.resolve("node.n1.key"))).isNotEqualTo(nodeKey);
  }

  @Test
  void refusalsAreOneLine() {
    assertThat(run("certs", "node", "--dir", dir.toString(), "--name", "n1", "--host", "localhost")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("shale: no CA in " + dir + " (ca.crt and ca.key); make one with 'shale certs ca --dir " + dir + "'\n");

    assertThat(run("certs", "ca", "--dir", dir.toString())).isZero();
    assertThat(run("certs", "node", "--dir", dir.toString(), "--name", "n1", "--host", "bad host")).isEqualTo(2);
    assertThat(err.toString()).startsWith("shale: --host: not a host name or IP address: 'bad host'\n");
    assertThat(run("certs", "client", "--dir", dir.toString(), "--name", "../x")).isEqualTo(2);
    assertThat(err.toString()).startsWith("shale: --name: 1 to 64 of A-Z a-z 0-9 . _ - (not starting with '.'), not '../x'\n");
    assertThat(run("certs", "client", "--dir", dir.toString(), "--name", "c", "--days", "0")).isEqualTo(2);
    assertThat(err.toString()).startsWith("shale: --days: from 1 to 36500, not 0\n");
    assertThat(dir.resolve("node.n1.key")).doesNotExist();
    assertThat(dir.resolve("client.c.key")).doesNotExist();
  }

  private static Duration days(X509Certificate certificate) {
    return Duration.between(certificate.getNotBefore().toInstant(), certificate.getNotAfter().toInstant());
  }

  private static void verify(X509Certificate leaf, X509Certificate ca) throws Exception {
    PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
    parameters.setRevocationEnabled(false);
    parameters.setDate(Date.from(leaf.getNotBefore().toInstant().plusSeconds(1)));
    CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), parameters);
  }
}
