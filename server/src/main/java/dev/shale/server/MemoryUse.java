package dev.shale.server;

import dev.shale.server.http.AnswerBudget;
import dev.shale.storage.EngineStats;
import dev.shale.storage.SuppressForbidden;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a node's memory goes now, for {@code /v0/status} and {@code /metrics}: its budget
 * ({@code --memory}, 0 without one), the heap, the engine's native memory (block cache, blocks read
 * or lent, filters and indexes, memtables), the answers waiting to be written, and the process's
 * resident memory as Linux counts it, which a memory cgroup limits (with the page cache besides).
 *
 * @param budgetBytes the node's {@code --memory}; 0: none
 * @param heapMaxBytes the heap's bound ({@code -Xmx})
 * @param heapUsedBytes the heap in use now
 * @param blockCacheCapacityBytes the block cache's bound, filters and indexes included when the
 *     budget charges them to it
 * @param blockMemoryBytes native memory of table blocks: cached, being read, or lent
 * @param tableIndexBytes native memory of the open tables' filters and indexes
 * @param memtableBytes native memory of the active and frozen memtables
 * @param answerBytes answer bytes held now (heap copies and lent values), at most about
 *     {@code answerLimitBytes}
 * @param answerLimitBytes the answer budget
 * @param maxScans the scans served at once
 * @param scanViews the scans holding an engine iterator now (tables, memtables, read-ahead
 *     windows); a scan waiting for its reader holds none
 * @param residentBytes the process's resident memory (VmRSS), or -1 where it cannot be read
 */
public record MemoryUse(
    long budgetBytes,
    long heapMaxBytes,
    long heapUsedBytes,
    long blockCacheCapacityBytes,
    long blockMemoryBytes,
    long tableIndexBytes,
    long memtableBytes,
    long answerBytes,
    long answerLimitBytes,
    int maxScans,
    int scanViews,
    long residentBytes) {

  private static final Path PROC_SELF_STATUS = Path.of("/proc/self/status");

  /** The node's memory now. */
  public static MemoryUse now(EngineStats engine, ServerOptions options, AnswerBudget answers, ScanViews scanViews) {
    Runtime runtime = Runtime.getRuntime();
    return new MemoryUse(options.memoryBytes(), runtime.maxMemory(), runtime.totalMemory() - runtime.freeMemory(),
        engine.blockCacheCapacityBytes(), engine.blockMemoryBytes(), engine.tableIndexBytes(),
        engine.memtableBytes() + engine.frozenMemtableBytes(), answers.heldBytes(), answers.limitBytes(), options.maxScans(),
        scanViews.open(), processResidentBytes());
  }

  /** The JSON object of {@code /v0/status}'s "memory". */
  String json() {
    return "{\"budgetBytes\": " + budgetBytes
        + ", \"heapMaxBytes\": " + heapMaxBytes
        + ", \"heapUsedBytes\": " + heapUsedBytes
        + ", \"blockCacheCapacityBytes\": " + blockCacheCapacityBytes
        + ", \"blockMemoryBytes\": " + blockMemoryBytes
        + ", \"tableIndexBytes\": " + tableIndexBytes
        + ", \"memtableBytes\": " + memtableBytes
        + ", \"answerBytes\": " + answerBytes
        + ", \"answerLimitBytes\": " + answerLimitBytes
        + ", \"maxScans\": " + maxScans
        + ", \"scanViews\": " + scanViews
        + ", \"residentBytes\": " + residentBytes + "}";
  }

  // VmRSS of /proc/self/status, in kB there.
  @SuppressForbidden(reason = "the kernel's report of this process's memory, not a file of the store: no Vfs models it")
  private static long processResidentBytes() {
    try {
      for (String line : Files.readAllLines(PROC_SELF_STATUS)) {
        if (line.startsWith("VmRSS:")) {
          String kb = line.substring("VmRSS:".length()).trim();
          return Long.parseLong(kb.substring(0, kb.indexOf(' '))) << 10;
        }
      }
      return -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
