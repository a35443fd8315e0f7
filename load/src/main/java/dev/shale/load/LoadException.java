package dev.shale.load;

import org.jspecify.annotations.Nullable;

/** A run that could not be made (the node is unreachable, the attach failed...): a one-line reason. */
public final class LoadException extends Exception {
  public LoadException(String message) {
    super(message);
  }

  public LoadException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
