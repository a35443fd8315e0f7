package dev.shale.server.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The trust of a connection between nodes, for a transport that takes JDK trust managers rather
 * than Netty contexts (the Raft group's gRPC transport): the other end must present a certificate
 * of the cluster CA in force (read at each handshake, so a reloaded cluster CA file reaches new
 * connections). Accepting, it must be a node's certificate ({@link CaTrust#checkNode}: a client
 * certificate of the same CA is for the HTTP API); dialing, the JDK's PKIX checks, with the host
 * name when the connection asks for it ("HTTPS" endpoint identification, as gRPC's client sets).
 *
 * <p>Thread safe: the CaTrust is immutable and read through {@code current}.
 */
final class PeerTrustManager extends X509ExtendedTrustManager {
  private final Supplier<CaTrust> current;

  PeerTrustManager(Supplier<CaTrust> current) {
    this.current = current;
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    current.get().trustManager().checkClientTrusted(chain, authType);
    CaTrust.requireNodeUsage(chain[0]);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    current.get().trustManager().checkClientTrusted(chain, authType, socket);
    CaTrust.requireNodeUsage(chain[0]);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    current.get().trustManager().checkClientTrusted(chain, authType, engine);
    CaTrust.requireNodeUsage(chain[0]);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    current.get().trustManager().checkServerTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    current.get().trustManager().checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    current.get().trustManager().checkServerTrusted(chain, authType, engine);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return current.get().trustManager().getAcceptedIssuers();
  }
}
