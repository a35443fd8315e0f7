package dev.shale.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which hosts a node certificate names, by the rules of HTTPS: what a peer's HELLO is checked against. */
class HostNamesTest {
  private static final Instant FROM = Instant.parse("2026-01-01T00:00:00Z");
  private final CertificateAuthority ca = CertificateAuthority.create("CA", FROM, FROM.plus(Duration.ofDays(3650)));

  @Test
  void anIpAddressMustBeAnIpNameAndAHostNameADnsName() {
    X509Certificate certificate = node("10.0.0.1", "::1", "Node-A.Example.com", "*.nodes.example.com");
    assertThat(HostNames.names(certificate, "10.0.0.1")).isTrue();
    assertThat(HostNames.names(certificate, "10.0.0.2")).isFalse();
    assertThat(HostNames.names(certificate, "0:0:0:0:0:0:0:1")).as("the same IPv6 address, spelled out").isTrue();
    assertThat(HostNames.names(certificate, "node-a.example.com")).as("DNS names compare without case").isTrue();
    assertThat(HostNames.names(certificate, "b.nodes.example.com")).isTrue();
    assertThat(HostNames.names(certificate, "a.b.nodes.example.com")).as("a wildcard is one label").isFalse();
    assertThat(HostNames.names(certificate, "nodes.example.com")).isFalse();
    assertThat(HostNames.names(certificate, "node-b.example.com")).isFalse();
  }

  @Test
  void aNameIsNeverTakenForAnAddressNorTheOtherWayRound() {
    assertThat(HostNames.names(node("localhost"), "127.0.0.1")).isFalse();
    assertThat(HostNames.names(node("127.0.0.1"), "localhost")).isFalse();
    assertThat(HostNames.names(ca.issueClient("alice", FROM, FROM.plus(Duration.ofDays(1))).certificate(), "alice"))
        .as("no subject alternative names at all").isFalse();
  }

  private X509Certificate node(String... names) {
    return ca.issueNode("n", List.of(names), FROM, FROM.plus(Duration.ofDays(1))).certificate();
  }
}
