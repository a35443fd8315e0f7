package dev.shale.server.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.jspecify.annotations.Nullable;

/** What a connection's TLS handshake showed of the other end, and one-line reasons for refusing it. */
final class ConnectionCertificates {
  private ConnectionCertificates() {}

  /**
   * The certificate chain the other end of {@code channel} presented in its handshake (which
   * verified it against every CA the port trusts); empty when it presented none; null when the
   * connection is not TLS.
   */
  static X509Certificate @Nullable [] of(Channel channel) {
    SslHandler ssl = channel.pipeline().get(SslHandler.class);
    if (ssl == null) return null;
    try {
      Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
      return Arrays.stream(chain).map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
    } catch (SSLPeerUnverifiedException e) {
      return new X509Certificate[0];
    }
  }

  /** The innermost message of {@code failure}'s causes (the most precise one), on one line. */
  static String reason(Throwable failure) {
    String message = String.valueOf(failure.getMessage());
    for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null) message = cause.getMessage();
    }
    return message.replaceAll("[\\r\\n]+", " ");
  }
}
