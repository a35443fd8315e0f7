package dev.shale.app;

import org.jspecify.annotations.Nullable;

/** The node could not start; the message says why in one line, and is all the user sees. */
final class StartupException extends RuntimeException {
  StartupException(String message) {
    super(message);
  }

  StartupException(@Nullable String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
