package dev.shale.app;

/** An admin call that failed, with a one-line reason fit for the command line. */
final class AdminCallException extends RuntimeException {
  AdminCallException(String message, Throwable cause) {
    super(message, cause);
  }

  AdminCallException(String message) {
    super(message);
  }
}
