package dev.shale.server.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The JDK's PKIX checks against a set of CAs, outside a handshake: whether a chain a connection
 * presented leads to one of them (signatures, validity now, basic constraints, key usage). A TLS
 * port trusts the cluster CA and the client CA together in its handshake (a client may present a
 * certificate of either, or none); which of them a connection's certificate is from decides what
 * it may do, and that is checked here, after the handshake.
 *
 * <p>Immutable, thread safe.
 */
final class CaTrust {
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  private final X509ExtendedTrustManager pkix;

  private CaTrust(X509ExtendedTrustManager pkix) {
    this.pkix = pkix;
  }

  /** Trust in {@code cas} (at least one). */
  static CaTrust of(List<X509Certificate> cas) throws TlsSetupException {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      for (int i = 0; i < cas.size(); i++) store.setCertificateEntry("ca-" + i, cas.get(i));
      TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
      factory.init(store);
      for (TrustManager manager : factory.getTrustManagers()) {
        if (manager instanceof X509ExtendedTrustManager x509) return new CaTrust(x509);
      }
      throw new TlsSetupException("the JDK's PKIX trust manager factory made no X509ExtendedTrustManager");
    } catch (GeneralSecurityException | IOException e) {
      throw new TlsSetupException("cannot trust the CA certificates: " + e.getMessage(), e);
    }
  }

  /** The PKIX trust manager, for the contexts that verify peers in their handshakes. */
  X509ExtendedTrustManager trustManager() {
    return pkix;
  }

  /** Checks that {@code chain} is a client's certificate (extended key usage clientAuth, or none) issued by one of the CAs. */
  void checkClient(X509Certificate[] chain) throws CertificateException {
    pkix.checkClientTrusted(chain, chain[0].getPublicKey().getAlgorithm());
  }

  /**
   * Checks that {@code chain} is a node's certificate of the CAs: a client's (a node dials its
   * peers with it) that is a server's too (extended key usage serverAuth, or none), as {@code
   * shale certs node} makes. A client certificate of the same CA ({@code shale certs client},
   * clientAuth only) is for the HTTP API, not for a connection between nodes.
   */
  void checkNode(X509Certificate[] chain) throws CertificateException {
    checkClient(chain);
    requireNodeUsage(chain[0]);
  }

  /** Checks that {@code certificate} may serve as a node's: extended key usage serverAuth, or none. */
  static void requireNodeUsage(X509Certificate certificate) throws CertificateException {
    List<String> purposes;
    try {
      purposes = certificate.getExtendedKeyUsage();
    } catch (CertificateParsingException e) {
      throw new CertificateException("unreadable extended key usage: " + e.getMessage(), e);
    }
    if (purposes != null && !purposes.contains(SERVER_AUTH)) {
      throw new CertificateException(certificate.getSubjectX500Principal().getName()
          + " is not a node certificate (its extended key usage has no serverAuth)");
    }
  }
}
