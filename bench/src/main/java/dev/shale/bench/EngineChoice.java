package dev.shale.bench;

import java.util.List;
import java.util.Locale;

/** Which engines a run measures. */
public enum EngineChoice {
  SHALE(List.of(BenchEngine.SHALE)),
  ROCKSDB(List.of(BenchEngine.ROCKSDB)),
  BOTH(List.of(BenchEngine.SHALE, BenchEngine.ROCKSDB));

  @SuppressWarnings("ImmutableEnumChecker") // every constant holds a List.of, which cannot change
  private final List<BenchEngine> engines;

  EngineChoice(List<BenchEngine> engines) {
    this.engines = engines;
  }

  List<BenchEngine> engines() {
    return engines;
  }

  /** {@code shale}, {@code rocksdb} or {@code both} (any case); IllegalArgumentException otherwise. */
  public static EngineChoice named(String name) {
    return switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "shale" -> SHALE;
      case "rocksdb" -> ROCKSDB;
      case "both" -> BOTH;
      default -> throw new IllegalArgumentException(
          "--engine must be shale, rocksdb or both: '" + name + "'");
    };
  }
}
