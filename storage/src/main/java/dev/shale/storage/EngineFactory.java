package dev.shale.storage;

import java.nio.file.Path;

/**
 * Opens engines: the way {@link Engine#open} reaches the implementation without naming it, so
 * this API package depends on no engine internals. The storage module provides one, registered
 * in {@code META-INF/services/dev.shale.storage.EngineFactory} and found with
 * {@link java.util.ServiceLoader}.
 */
public interface EngineFactory {
  /** Opens (creating if needed) the store in {@code directory}, replaying its log. */
  Engine open(Path directory, EngineOptions options);
}
