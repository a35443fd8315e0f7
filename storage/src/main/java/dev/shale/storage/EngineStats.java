package dev.shale.storage;

import java.util.List;

/**
 * A snapshot of an engine's counters.
 *
 * @param memtableBytes bytes in the active memtable
 * @param immutableMemtables frozen memtables waiting for their flush
 * @param tables table files in the store
 * @param tableBytes bytes of table files
 * @param flushes flushes completed since open
 * @param writeStalls writes that had to wait for a flush or a compaction to make room
 * @param writeStallRejections writes refused with {@link WriteStallException}
 * @param lastVersion the engine clock's newest version
 * @param tablesPerLevel table files at level 0, 1, ... (one element per level)
 * @param compactions compactions completed since open (trivial moves included)
 * @param compactionBytesRead bytes of input tables compactions read since open
 * @param compactionBytesWritten bytes of tables compactions wrote since open
 * @param writeSlowdowns write groups delayed because level 0 reached its slowdown trigger
 * @param compactionFailures compactions that failed since open (each logged)
 * @param flushBytesWritten bytes of tables flushes wrote since open (with
 *     {@code compactionBytesWritten}: the engine's write amplification)
 * @param valueLeases values lent by {@link Engine#read} and not yet closed: each pins a read view
 * @param bytesPerLevel bytes of table files at level 0, 1, ... (one element per level, as
 *     {@code tablesPerLevel})
 * @param logFsyncs fsyncs of the write-ahead log since open (group commits, interval syncs,
 *     segment switches, close)
 * @param logFsyncNanos the time those fsyncs took, together, in nanoseconds
 * @param writeStallNanos the time the engine spent stalled (writes waiting for a flush or a
 *     compaction to make room) since open, the stall under way included, in nanoseconds
 * @param writeSlowdownNanos the time write groups slept at the slowdown trigger since open, in
 *     nanoseconds
 * @param blockReads data blocks read from table files since open: by reads, scans and compactions,
 *     found in the block cache or not
 * @param blockCacheHits of {@code blockReads}, those found in the block cache (already checked and
 *     decompressed)
 * @param blockCacheBytes what the block cache holds now, in bytes (at most
 *     {@link EngineOptions#blockCacheBytes})
 * @param diskFreeBytes bytes free for the engine on its directory's file system now, or -1 if
 *     they cannot be read
 * @param diskReserveBytes the free space below which the engine refuses writes
 *     ({@link EngineOptions#diskReserveBytes})
 * @param blockMemoryBytes native memory held by table blocks now: the block cache's, and blocks
 *     read outside it (a get's until it has copied its value, a lent value's until its lease
 *     closes)
 * @param tableIndexBytes native memory held by the open tables' filters and indexes, which stay
 *     resident (charged to the block cache when {@link EngineOptions#indexesInBlockCache})
 * @param frozenMemtableBytes bytes in the frozen memtables waiting for their flush (native
 *     memory, as the active one's {@code memtableBytes})
 * @param blockCacheCapacityBytes the block cache's bound ({@link EngineOptions#blockCacheBytes}),
 *     filters and indexes included when they are charged to it
 * @param flushFailures flush attempts that failed since open (each logged, and retried)
 */
public record EngineStats(
    long memtableBytes,
    int immutableMemtables,
    int tables,
    long tableBytes,
    long flushes,
    long writeStalls,
    long writeStallRejections,
    long lastVersion,
    List<Integer> tablesPerLevel,
    long compactions,
    long compactionBytesRead,
    long compactionBytesWritten,
    long writeSlowdowns,
    long compactionFailures,
    long flushBytesWritten,
    long valueLeases,
    List<Long> bytesPerLevel,
    long logFsyncs,
    long logFsyncNanos,
    long writeStallNanos,
    long writeSlowdownNanos,
    long blockReads,
    long blockCacheHits,
    long blockCacheBytes,
    long diskFreeBytes,
    long diskReserveBytes,
    long blockMemoryBytes,
    long tableIndexBytes,
    long frozenMemtableBytes,
    long blockCacheCapacityBytes,
    long flushFailures) {

  public EngineStats {
    tablesPerLevel = List.copyOf(tablesPerLevel);
    bytesPerLevel = List.copyOf(bytesPerLevel);
  }
}
