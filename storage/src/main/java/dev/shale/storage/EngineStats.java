package dev.shale.storage;

/**
 * A snapshot of an engine's counters.
 *
 * @param memtableBytes bytes in the active memtable
 * @param immutableMemtables frozen memtables waiting for their flush
 * @param tables table files in the store
 * @param tableBytes bytes of table files
 * @param flushes flushes completed since open
 * @param writeStalls writes that had to wait for a flush to make room
 * @param writeStallRejections writes refused with {@link WriteStallException}
 * @param lastVersion the engine clock's newest version
 */
public record EngineStats(
    long memtableBytes,
    int immutableMemtables,
    int tables,
    long tableBytes,
    long flushes,
    long writeStalls,
    long writeStallRejections,
    long lastVersion) {}
