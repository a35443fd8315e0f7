package dev.shale.storage;

/**
 * The CPU priority of an engine's flush and compaction threads ({@link
 * EngineOptions#backgroundPriority()}).
 *
 * <p>Why lower it: a flush or a compaction is work that may wait (the write path only needs it
 * done before the next memtable fills or before level 0 reaches its slowdown trigger), while a
 * request queued behind it may not. At the same priority, the scheduler shares a busy core evenly
 * between them, so every background pass shows as a burst of request latency; several nodes on one
 * machine, whose memtables fill in step under replication, compact at the same time and take the
 * cores for seconds. At a low priority a background thread runs on the CPU the request threads
 * leave idle. It is never starved for long: when writers must wait for it (a full memtable, level
 * 0 at its stop trigger) they block, and the CPU is its. RocksDB does the same with
 * {@code Env::LowerThreadPoolCPUPriority}.
 */
public enum BackgroundPriority {
  /** Nice 19 on Linux, the lowest ordinary priority; the thread's own, elsewhere. */
  LOW(19),
  /** The priority of the thread that opened the engine. */
  NORMAL(0);

  private final int niceness;

  BackgroundPriority(int niceness) {
    this.niceness = niceness;
  }

  /** The Linux nice value a background thread runs at (0 for {@link #NORMAL}: left as it is). */
  public int niceness() {
    return niceness;
  }
}
