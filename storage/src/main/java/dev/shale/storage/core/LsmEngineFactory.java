package dev.shale.storage.core;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineFactory;
import dev.shale.storage.EngineOptions;
import java.nio.file.Path;

/**
 * The {@link EngineFactory} of {@link LsmEngine}, found by {@link java.util.ServiceLoader}
 * (listed in META-INF/services), which is why it is public.
 */
public final class LsmEngineFactory implements EngineFactory {
  @Override
  public Engine open(Path directory, EngineOptions options) {
    return LsmEngine.open(directory, options);
  }
}
