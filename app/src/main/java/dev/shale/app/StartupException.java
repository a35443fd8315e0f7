package dev.shale.app;

/** The node could not start; the message says why in one line, and is all the user sees. */
final class StartupException extends RuntimeException {
  StartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
