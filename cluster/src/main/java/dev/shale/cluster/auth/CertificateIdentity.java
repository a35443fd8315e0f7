package dev.shale.cluster.auth;

/**
 * What a mutual-TLS client certificate, verified by the node's TLS in the handshake, says about
 * who the client is (docs/design.md, "Client certificates"). As etcd and CockroachDB do, the
 * certificate's subject common name (CN) is the name of the token whose grant the client gets:
 * {@code shale certs client --name app} makes a certificate of token {@code app}.
 */
public sealed interface CertificateIdentity {
  /** A certificate whose common name names the token {@code tokenName} (not yet looked up). */
  record Named(String tokenName, String subject) implements CertificateIdentity {}

  /**
   * A verified certificate that names no token: a node's certificate, or one without a single
   * common name; {@code reason} says which (one line).
   */
  record Unnamed(String reason) implements CertificateIdentity {}
}
