package dev.shale.app;

/** An offline tool could not do its work (the store is in use, a file is missing); the message says why in one line. */
final class ToolFailure extends RuntimeException {
  ToolFailure(String message) {
    super(message);
  }

  ToolFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
