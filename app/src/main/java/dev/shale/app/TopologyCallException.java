package dev.shale.app;

import org.jspecify.annotations.Nullable;

/** A call of {@link TopologyCalls} that did not get its answer, with one line saying why. */
final class TopologyCallException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  TopologyCallException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
