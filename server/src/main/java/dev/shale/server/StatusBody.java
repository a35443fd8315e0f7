package dev.shale.server;

import dev.shale.storage.EngineStats;

/**
 * The JSON of {@code GET /v0/status}: that the node serves, what tools on the same host need
 * (the pid, to attach a profiler; the heap, to size a store "10x the heap"), and the engine's
 * sizes, so that a benchmark can say what store it measured; and the replication counters
 * (read repairs, hints), which tests and operators watch to see replicas converge.
 */
final class StatusBody {
  private static final long PID = ProcessHandle.current().pid();

  private StatusBody() {}

  static String of(EngineStats stats, ReplicationStats replication) {
    return "{\"status\": \"serving\", \"pid\": " + PID
        + ", \"maxHeapBytes\": " + Runtime.getRuntime().maxMemory()
        + ", \"memtableBytes\": " + stats.memtableBytes()
        + ", \"tables\": " + stats.tables()
        + ", \"tableBytes\": " + stats.tableBytes()
        + ", \"tablesPerLevel\": " + stats.tablesPerLevel()
        + ", \"compactions\": " + stats.compactions()
        + ", \"writeStalls\": " + stats.writeStalls()
        + ", " + replication.jsonMembers() + "}";
  }
}
