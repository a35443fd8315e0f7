package dev.shale.storage;

/**
 * The CPU priority of an engine's compaction thread ({@link EngineOptions#compactionPriority()}).
 *
 * <p>Why lower it: a compaction is work that may wait (writes only need it before level 0 reaches
 * its slowdown trigger, many flushes away), while a request queued behind it may not. At the same
 * priority the scheduler shares a busy core evenly between them, so every compaction shows as
 * seconds of request latency; nodes on one machine, whose memtables fill in step under
 * replication, compacted at the same time and took every core. At a low priority the compaction
 * runs on the CPU the request threads leave idle. RocksDB does the same for its compaction pool
 * ({@code Env::LowerThreadPoolCPUPriority}), and as there the flush thread keeps the normal
 * priority: a flush is short, and memory waits on it, so a starved flush would turn an overloaded
 * node's load into write stalls.
 */
public enum CpuPriority {
  /** Nice 19 on Linux, the lowest ordinary priority; the thread's own, elsewhere. */
  LOW(19),
  /** The priority of the thread that opened the engine. */
  NORMAL(0);

  private final int niceness;

  CpuPriority(int niceness) {
    this.niceness = niceness;
  }

  /** The Linux nice value a thread runs at (0 for {@link #NORMAL}: left as it is). */
  public int niceness() {
    return niceness;
  }
}
