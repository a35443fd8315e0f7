package dev.shale.server.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.cert.X509Certificate;
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
   */
  public static SslContext server(ServerCredentials credentials) throws TlsSetupException {
    try {
      SslContextBuilder builder = SslContextBuilder.forServer(credentials.key(), credentials.chain().toArray(X509Certificate[]::new))
          .sslProvider(PROVIDER)
          .protocols(PROTOCOLS);
      if (!credentials.clientCas().isEmpty()) {
        builder.trustManager(credentials.clientCas().toArray(X509Certificate[]::new)).clientAuth(ClientAuth.REQUIRE);
      }
      return builder.build();
    } catch (SSLException | RuntimeException e) {
      throw new TlsSetupException("cannot set up TLS with the certificate " + credentials.certificate().getSubjectX500Principal().getName()
          + ": " + e.getMessage(), e);
    }
  }
}
