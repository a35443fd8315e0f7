package dev.shale.bench;

import java.nio.file.Path;

/** An engine the benchmark can open: its name in reports, and how to open a store of it. */
enum BenchEngine {
  SHALE("shale") {
    @Override
    BenchStore open(Path directory, EngineBenchConfig config) {
      return ShaleStore.open(directory, config);
    }
  },
  ROCKSDB("rocksdb") {
    @Override
    BenchStore open(Path directory, EngineBenchConfig config) {
      return RocksStore.open(directory, config);
    }
  };

  private final String reportName;

  BenchEngine(String reportName) {
    this.reportName = reportName;
  }

  String reportName() {
    return reportName;
  }

  /** Opens (creating) a store in {@code directory}, with the benchmark's settings. */
  abstract BenchStore open(Path directory, EngineBenchConfig config);
}
