package dev.shale.server.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Builds the SslContexts of a node: the one place that chooses the TLS engine and the protocols.
 *
 * <p>The engine is the JDK's own provider. Netty's BoringSSL build (netty-tcnative) is the
 * other candidate; issue 35 has it chosen by a benchmark, so switching is this one constant.
 * Protocols: TLS 1.3 and 1.2 only (1.0 and 1.1 are deprecated by RFC 8996); the cipher suites are
 * the provider's defaults for those, which are all AEAD with forward secrecy.
 */
public final class TlsContexts {
  /** The TLS engine of every context a node makes. */
  static final SslProvider PROVIDER = SslProvider.JDK;
  static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

  private TlsContexts() {}

  /**
   * The server side of the node's port: presents {@code credentials}' chain; with client CAs,
   * every client must present a certificate that chains to one (mutual TLS).
   *
   * <p>With a cluster CA the port serves peers and HTTP clients alike, and tells them apart only
   * after the handshake (the first bytes: PortSniffer), so the handshake asks for a certificate
   * without requiring one and accepts one of either CA; what each kind of connection needs is
   * checked once it is known (NodeTls.peerRefusal, NodeTls.httpClientRefusal). A certificate of
   * neither CA still fails the handshake.
   */
  public static SslContext server(ServerCredentials credentials) throws TlsSetupException {
    try {
      SslContextBuilder builder = SslContextBuilder.forServer(credentials.key(), credentials.chain().toArray(X509Certificate[]::new))
          .sslProvider(PROVIDER)
          .protocols(PROTOCOLS);
      if (!credentials.clusterCas().isEmpty()) {
        List<X509Certificate> trusted = new ArrayList<>(credentials.clusterCas());
        trusted.addAll(credentials.clientCas());
        builder.trustManager(trusted.toArray(X509Certificate[]::new)).clientAuth(ClientAuth.OPTIONAL);
      } else if (!credentials.clientCas().isEmpty()) {
        builder.trustManager(credentials.clientCas().toArray(X509Certificate[]::new)).clientAuth(ClientAuth.REQUIRE);
      }
      return builder.build();
    } catch (SSLException | RuntimeException e) {
      throw new TlsSetupException("cannot set up TLS with the certificate " + credentials.certificate().getSubjectX500Principal().getName()
          + ": " + e.getMessage(), e);
    }
  }

  /**
   * The dialing side of a connection to a peer: presents {@code credentials}' chain (the node's
   * certificate is a client's too), trusts the cluster CA only, and checks that the peer's
   * certificate names the host dialed ("HTTPS" endpoint identification, given the host by
   * {@code newHandler(alloc, host, port)}): a member's certificate cannot stand in for another's.
   */
  static SslContext peerClient(ServerCredentials credentials, CaTrust cluster) throws TlsSetupException {
    try {
      return SslContextBuilder.forClient()
          .keyManager(credentials.key(), credentials.chain().toArray(X509Certificate[]::new))
          .trustManager(cluster.trustManager())
          .endpointIdentificationAlgorithm("HTTPS")
          .sslProvider(PROVIDER)
          .protocols(PROTOCOLS)
          .build();
    } catch (SSLException | RuntimeException e) {
      throw new TlsSetupException("cannot set up TLS to the peers with the certificate "
          + credentials.certificate().getSubjectX500Principal().getName() + ": " + e.getMessage(), e);
    }
  }
}
