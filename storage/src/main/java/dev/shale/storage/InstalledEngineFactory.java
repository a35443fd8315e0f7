package dev.shale.storage;

import java.util.List;
import java.util.ServiceLoader;

/** The one {@link EngineFactory} on the class path, looked up once. */
final class InstalledEngineFactory {
  private static final List<EngineFactory> FOUND =
      ServiceLoader.load(EngineFactory.class, EngineFactory.class.getClassLoader()).stream()
          .map(ServiceLoader.Provider::get)
          .toList();

  private InstalledEngineFactory() {}

  // Exactly one: none means the storage jar lost its service file, two would make which engine
  // opens a store depend on the order of the class path.
  static EngineFactory get() {
    if (FOUND.size() != 1) {
      throw new IllegalStateException("expected one " + EngineFactory.class.getName()
          + " on the class path (META-INF/services of the storage jar), found " + FOUND.size()
          + ": " + FOUND);
    }
    return FOUND.getFirst();
  }
}
