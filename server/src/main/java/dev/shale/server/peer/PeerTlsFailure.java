package dev.shale.server.peer;

import dev.shale.cluster.NodeAddress;
import io.netty.handler.ssl.NotSslRecordException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * One line for a failed TLS handshake with a peer this node dialed, saying what to fix: the peer
 * speaks no TLS (a cluster is all-TLS or all-clear), its certificate is not of the cluster CA, or
 * does not name the member's host, or it refused this node's certificate.
 */
final class PeerTlsFailure {
  private PeerTlsFailure() {}

  /** Whether {@code cause} is a TLS failure (of the handshake or a record) rather than the peer protocol's. */
  static boolean isTls(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException) return true;
    }
    return false;
  }

  static String reason(NodeAddress peer, Throwable cause) {
    if (find(cause, NotSslRecordException.class) != null) {
      return peer + " does not speak TLS: it runs without --tls-cert, --tls-key and --tls-cluster-ca, which every node "
          + "of a cluster needs once one has them (or none does)";
    }
    Throwable path = find(cause, CertPathBuilderException.class);
    if (path == null) path = find(cause, CertPathValidatorException.class);
    if (path != null) {
      return "the certificate of " + peer + " is not one of the cluster CA (--tls-cluster-ca): " + innermost(path);
    }
    CertificateException certificate = find(cause, CertificateException.class);
    if (certificate != null && String.valueOf(certificate.getMessage()).matches("(?s).*(subject alternative|No name matching).*")) {
      return "the certificate of " + peer + " does not name " + peer.host() + " (the host of its URL in the cluster map): "
          + innermost(certificate);
    }
    if (certificate != null) return "the certificate of " + peer + " is refused: " + innermost(certificate);
    String message = innermost(cause);
    if (message.contains("fatal alert")) {
      return peer + " refused this node's certificate in the TLS handshake (" + message + "): it takes node certificates of "
          + "its cluster CA only";
    }
    return "the TLS handshake with " + peer + " failed: " + message;
  }

  private static <T extends Throwable> @Nullable T find(Throwable cause, Class<T> type) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (type.isInstance(t)) return type.cast(t);
    }
    return null;
  }

  private static String innermost(Throwable failure) {
    String message = String.valueOf(failure.getMessage());
    for (Throwable t = failure.getCause(); t != null; t = t.getCause()) {
      if (t.getMessage() != null) message = t.getMessage();
    }
    return PeerConnections.oneLine(message);
  }
}
