package dev.shale.app;

import org.jspecify.annotations.Nullable;

/**
 * What {@code --auth} and {@code --admin-token-file} ask of a node (docs/design.md, "API tokens").
 *
 * @param required every client request needs an API token ({@code --auth tokens})
 * @param bootstrapSecret the bootstrap admin token's secret ({@code --admin-token-file}), or null
 */
record TokenOptions(boolean required, @Nullable String bootstrapSecret) {
  /** {@code --auth none}: tokens are kept (and may be added) but not required. */
  static final TokenOptions NONE = new TokenOptions(false, null);

  @Override
  public String toString() {
    // Never the secret, wherever a record's text ends up.
    return "TokenOptions[required=" + required + ", bootstrap=" + (bootstrapSecret != null) + "]";
  }
}
