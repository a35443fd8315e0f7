package dev.shale.app;

/** A call to a node (an admin call, or a client's read or write) that failed, with a one-line reason fit for the command line. */
final class AdminCallException extends RuntimeException {
  AdminCallException(String message, Throwable cause) {
    super(message, cause);
  }

  AdminCallException(String message) {
    super(message);
  }
}
