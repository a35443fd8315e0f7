package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.server.tls.PemFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code shale cluster} makes under --data for its nodes, and what a second start keeps. */
class LocalClusterCredentialsTest {
  @TempDir Path data;

  @Test
  void aSecondStartKeepsTheCaAndTheTokenAndIssuesNodeCertificatesAnew() throws Exception {
    LocalClusterCredentials first = LocalClusterCredentials.prepare(data, "127.0.0.1", 2);
    String ca = Files.readString(first.caCertificate());
    String token = Files.readString(first.adminToken());
    String node = Files.readString(first.nodeCertificates().get(1));
    assertThat(token.strip()).matches("shale_[A-Za-z0-9_-]{43}");
    for (Path secret : List.of(first.adminToken(), first.nodeKeys().get(0), data.resolve("certs").resolve("ca.key"))) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret))).as(secret.toString()).isEqualTo("rw-------");
    }
    X509Certificate issued = PemFiles.readCertificates(first.nodeCertificates().get(1)).getFirst();
    assertThat(issued.getSubjectX500Principal().getName()).isEqualTo("CN=node-1");
    assertThat(issued.getSubjectAlternativeNames().stream().map(entry -> String.valueOf(entry.get(1))).toList())
        .containsExactly("127.0.0.1", "localhost");

    LocalClusterCredentials second = LocalClusterCredentials.prepare(data, "127.0.0.1", 2);
    assertThat(Files.readString(second.caCertificate())).as("the CA clients trust").isEqualTo(ca);
    assertThat(Files.readString(second.adminToken())).as("the admin token").isEqualTo(token);
    assertThat(Files.readString(second.nodeCertificates().get(1))).as("a node certificate").isNotEqualTo(node);
  }

  @Test
  void aCaWithoutItsKeyRefusesTheStartNamingTheFile() throws Exception {
    LocalClusterCredentials.prepare(data, "127.0.0.1", 1);
    Files.delete(data.resolve("certs").resolve("ca.key"));
    assertThatThrownBy(() -> LocalClusterCredentials.prepare(data, "127.0.0.1", 1))
        .isInstanceOf(StartupException.class).hasMessageContaining("ca.key").message().doesNotContain("\n");
  }

  @Test
  void nodeCertificatesNameTheHostAndOnLoopbackItsUsualSpellings() {
    assertThat(LocalClusterCredentials.hostNames("127.0.0.1")).containsExactly("127.0.0.1", "localhost");
    assertThat(LocalClusterCredentials.hostNames("localhost")).containsExactly("localhost", "127.0.0.1");
    assertThat(LocalClusterCredentials.hostNames("10.1.2.3")).containsExactly("10.1.2.3");
  }
}
