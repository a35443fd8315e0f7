package dev.shale.storage;

import java.util.function.LongSupplier;

/**
 * Settings of an {@link Engine}. Immutable; change one with the {@code with...} methods.
 *
 * @param syncMode when log records are forced to disk before a write is acknowledged
 * @param syncIntervalMillis in {@link SyncMode#INTERVAL}, the longest a written record waits for
 *     its fsync
 * @param memtableSizeBytes a memtable is frozen and flushed once it holds this many bytes
 * @param maxImmutableMemtables frozen memtables waiting for their flush; when this many wait and
 *     the active one fills up, writers wait (see {@code writeStallTimeoutMillis})
 * @param writeStallTimeoutMillis the longest a writer waits for a flush to make room before it
 *     gets a {@link WriteStallException}
 * @param blockSizeBytes the target size of a table's data block
 * @param bloomBitsPerKey bits of Bloom filter per key in each table (0: no filter); 10 bits give
 *     about 1% false positives
 * @param wallClockMillis the wall clock behind record versions (tests inject their own)
 */
public record EngineOptions(
    SyncMode syncMode,
    long syncIntervalMillis,
    long memtableSizeBytes,
    int maxImmutableMemtables,
    long writeStallTimeoutMillis,
    int blockSizeBytes,
    int bloomBitsPerKey,
    LongSupplier wallClockMillis) {

  public EngineOptions {
    if (syncIntervalMillis <= 0) throw new IllegalArgumentException("syncIntervalMillis must be > 0");
    if (memtableSizeBytes < 64 * 1024) throw new IllegalArgumentException("memtableSizeBytes must be >= 64 KiB");
    if (maxImmutableMemtables < 1) throw new IllegalArgumentException("maxImmutableMemtables must be >= 1");
    if (writeStallTimeoutMillis < 0) throw new IllegalArgumentException("writeStallTimeoutMillis must be >= 0");
    if (blockSizeBytes < 256) throw new IllegalArgumentException("blockSizeBytes must be >= 256");
    if (bloomBitsPerKey < 0 || bloomBitsPerKey > 64) throw new IllegalArgumentException("bloomBitsPerKey must be in [0, 64]");
  }

  public static EngineOptions defaults() {
    return new EngineOptions(
        SyncMode.INTERVAL, 200, 16L << 20, 2, 2_000, 4096, 10, System::currentTimeMillis);
  }

  public EngineOptions withSyncMode(SyncMode v) {
    return new EngineOptions(v, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, wallClockMillis);
  }

  public EngineOptions withSyncIntervalMillis(long v) {
    return new EngineOptions(syncMode, v, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, wallClockMillis);
  }

  public EngineOptions withMemtableSizeBytes(long v) {
    return new EngineOptions(syncMode, syncIntervalMillis, v, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, wallClockMillis);
  }

  public EngineOptions withMaxImmutableMemtables(int v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, v, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, wallClockMillis);
  }

  public EngineOptions withWriteStallTimeoutMillis(long v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, v, blockSizeBytes, bloomBitsPerKey, wallClockMillis);
  }

  public EngineOptions withBlockSizeBytes(int v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, v, bloomBitsPerKey, wallClockMillis);
  }

  public EngineOptions withBloomBitsPerKey(int v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, v, wallClockMillis);
  }

  public EngineOptions withWallClockMillis(LongSupplier v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, v);
  }
}
