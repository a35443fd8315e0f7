package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.server.tls.PemFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The TLS of Shale's own HTTP clients ({@code --via https://...}): which CAs they trust
 * ({@code --ca-cert}; without it the JDK's default ones) and the certificate they present when a
 * node asks for one ({@code --cert}, {@code --key}: mutual TLS). Also turns a failed handshake
 * into one line that says what to do.
 */
final class ClientTls {
  private static final String HTTPS = "https://";

  private ClientTls() {}

  /** Whether {@code url} is an https:// URL (any case). */
  static boolean isHttps(String url) {
    return url.trim().regionMatches(true, 0, HTTPS, 0, HTTPS.length());
  }

  /** {@code url} with an https:// scheme written http://, for NodeAddress.parse, which knows host and port only. */
  static String asHttp(String url) {
    String given = url.trim();
    return isHttps(given) ? "http://" + given.substring(HTTPS.length()) : given;
  }

  /** The node an http:// or https:// --via names; an IllegalArgumentException names the URL as given. */
  static NodeAddress parseVia(String via) {
    try {
      return NodeAddress.parse(asHttp(via));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(String.valueOf(e.getMessage()).replace(asHttp(via), via.trim()), e);
    }
  }

  /**
   * The TLS of a command's --via: the context of {@link #context} for an https:// URL, null for
   * an http:// one (then any of the TLS options is an IllegalArgumentException).
   */
  static @Nullable SSLContext forVia(String via, @Nullable Path caCert, @Nullable Path cert, @Nullable Path key) {
    if (isHttps(via)) return context(caCert, cert, key);
    if (caCert != null || cert != null || key != null) {
      throw new IllegalArgumentException("--ca-cert, --cert and --key are for an https:// --via, not " + via);
    }
    return null;
  }

  /**
   * An SSLContext trusting the certificates in {@code caCert} (null: the JDK's defaults) and
   * presenting the chain in {@code cert} with the key in {@code key} (both null: no client
   * certificate); an IllegalArgumentException names the file that cannot be used.
   */
  static SSLContext context(@Nullable Path caCert, @Nullable Path cert, @Nullable Path key) {
    if ((cert == null) != (key == null)) throw new IllegalArgumentException("--cert and --key go together");
    try {
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      if (caCert == null) {
        trust.init((KeyStore) null);
      } else {
        KeyStore store = emptyStore();
        List<X509Certificate> cas = PemFiles.readCertificates(caCert);
        for (int i = 0; i < cas.size(); i++) store.setCertificateEntry("ca" + i, cas.get(i));
        trust.init(store);
      }
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      KeyStore identity = emptyStore();
      if (cert != null && key != null) {
        List<X509Certificate> chain = PemFiles.readCertificates(cert);
        PrivateKey privateKey = PemFiles.readPrivateKey(key);
        identity.setKeyEntry("client", privateKey, new char[0], chain.toArray(X509Certificate[]::new));
      }
      keys.init(identity, new char[0]);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
      return context;
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  /** One line for a failed handshake with {@code node}: an untrusted certificate says so, and how to trust it. */
  static String handshakeFailure(NodeAddress node, SSLHandshakeException e) {
    String url = "https://" + node.id();
    // The innermost certificate error says it best ("unable to find valid certification path").
    Throwable untrusted = null;
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof CertPathBuilderException || cause instanceof CertificateException) untrusted = cause;
    }
    if (untrusted != null) {
      return "the certificate of " + url + " is not trusted (" + oneLine(untrusted.getMessage())
          + "); give the CA that issued it with --ca-cert";
    }
    return "the TLS handshake with " + url + " failed: " + oneLine(e.getMessage())
        + " (a node that requires client certificates needs --cert and --key)";
  }

  private static KeyStore emptyStore() throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    return store;
  }

  private static String oneLine(@Nullable String text) {
    return dev.shale.server.Reasons.oneLine(String.valueOf(text));
  }
}
