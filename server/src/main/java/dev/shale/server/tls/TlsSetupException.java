package dev.shale.server.tls;

/** A node's TLS credentials cannot be used; the message says why in one line, naming the file. */
public final class TlsSetupException extends Exception {
  private static final long serialVersionUID = 1L;

  TlsSetupException(String message) {
    super(message);
  }

  TlsSetupException(String message, Throwable cause) {
    super(message, cause);
  }
}
