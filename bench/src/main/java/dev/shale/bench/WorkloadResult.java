package dev.shale.bench;

/**
 * What one workload measured on one engine. For a workload that did not run to the end
 * ({@link Status#UNSUPPORTED} or {@link Status#FAILED}) only engine, workload, status and
 * message mean anything.
 *
 * @param ops operations completed
 * @param seconds wall time of the operations (not counting a readcompacted's compaction)
 * @param p50Micros median latency of one operation, in microseconds (likewise p99, p99.9, max)
 * @param found reads that found a value (read workloads; -1 otherwise)
 * @param logicalWriteBytes key and value bytes the workload asked to write
 * @param procWriteBytes growth of /proc/self/io write_bytes during the workload; -1 if unknown
 * @param procReadBytes growth of /proc/self/io read_bytes during the workload (bytes read from
 *     the disk, not the page cache; compactions' included); -1 if unknown
 * @param majorFaults major page faults during the workload (reads of mapped files that waited for
 *     the disk); -1 if unknown
 * @param directoryGrowthBytes bytes added to the store's files, by sampling their sizes
 * @param spaceBytes the store's files at the end (du --apparent-size)
 * @param compactSeconds the full compaction before readcompacted's reads; -1 for others
 * @param notes the engine's file set at the end, stalls, and the like
 */
record WorkloadResult(
    String engine,
    Workload workload,
    Status status,
    String message,
    long ops,
    double seconds,
    double p50Micros,
    double p99Micros,
    double p999Micros,
    double maxMicros,
    long found,
    long logicalWriteBytes,
    long procWriteBytes,
    long procReadBytes,
    long majorFaults,
    long directoryGrowthBytes,
    long spaceBytes,
    double compactSeconds,
    String notes) {

  enum Status {
    OK("ok"),
    UNSUPPORTED("unsupported"),
    FAILED("failed");

    private final String reportName;

    Status(String reportName) {
      this.reportName = reportName;
    }

    String reportName() {
      return reportName;
    }
  }

  static WorkloadResult notRun(String engine, Workload workload, Status status, String message) {
    return new WorkloadResult(engine, workload, status, message, 0, 0, 0, 0, 0, 0, -1, 0, -1, -1, -1, 0, 0, -1, "");
  }

  boolean ok() {
    return status == Status.OK;
  }

  double opsPerSecond() {
    return seconds > 0 ? ops / seconds : 0;
  }

  /**
   * Bytes written to disk per logical byte written: /proc/self/io's count where known, else the
   * directory's growth. NaN for a workload that writes nothing of its own.
   */
  double writeAmplification() {
    if (logicalWriteBytes == 0) return Double.NaN;
    long diskBytes = procWriteBytes >= 0 ? procWriteBytes : directoryGrowthBytes;
    return (double) diskBytes / logicalWriteBytes;
  }
}
