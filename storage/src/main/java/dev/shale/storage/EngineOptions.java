package dev.shale.storage;

import dev.shale.storage.table.ReadAhead;
import java.util.Objects;

/**
 * Settings of an {@link Engine}. Immutable; change one with the {@code with...} methods.
 *
 * @param syncMode when log records are forced to disk before a write is acknowledged
 * @param syncIntervalMillis in {@link SyncMode#INTERVAL}, the longest a written record waits for
 *     its fsync
 * @param memtableSizeBytes a memtable is frozen and flushed once it holds this many bytes
 * @param maxImmutableMemtables frozen memtables waiting for their flush; when this many wait and
 *     the active one fills up, writers wait (see {@code writeStallTimeoutMillis})
 * @param writeStallTimeoutMillis the longest a writer waits for a flush or a compaction to make
 *     room before it gets a {@link WriteStallException}
 * @param blockSizeBytes the target size of a table's data block
 * @param bloomBitsPerKey bits of Bloom filter per key in each table (0: no filter); 10 bits give
 *     about 1% false positives
 * @param compression how the data blocks of the tables written from now on are compressed
 *     (tables written before are read as they are)
 * @param blockCacheBytes the bound of the cache of checked, decompressed data blocks, in native
 *     memory (0: no cache; every read loads its block, checks its crc, and decompresses it)
 * @param indexesInBlockCache whether the open tables' filters and indexes, which stay resident,
 *     are charged to the block cache: then {@code blockCacheBytes} bounds them and the cached
 *     blocks together (blocks get what they leave), as RocksDB's {@code
 *     cache_index_and_filter_blocks} with pinning; otherwise they come on top of it
 * @param l0CompactionTrigger level-0 tables that make level 0 due for compaction (score 1)
 * @param l0SlowdownTrigger level-0 tables from which every write group is delayed, at a write
 *     rate that halves with each further table, so compaction catches up without a hard stop
 * @param l0StopTrigger level-0 tables plus frozen memtables at which a full memtable is not
 *     frozen: writers wait (bounded by {@code writeStallTimeoutMillis}) for compaction
 * @param levelBaseBytes the most the base level (where level 0 compacts to) may be sized for,
 *     and the least any level's target is; the targets follow the store's size, x10 per level
 *     up to the last one's real size, and a store of at most this many bytes below level 0
 *     compacts level 0 straight into the last level (docs/design.md, "Shape and sizes")
 * @param tableTargetBytes a compaction closes an output table once it holds this many bytes
 * @param tombstoneGraceMillis the shortest time a tombstone is kept, counted from its version's
 *     physical millis; must exceed the longest time replication may deliver an older write late
 * @param diskReserveBytes free disk space kept for flushes: writes are refused with a
 *     {@link DiskFullException} once less is free, and taken again once there is more; a
 *     compaction starts only if it leaves this much free (docs/design.md, "A full disk")
 * @param compactionPriority the CPU priority of the compaction thread: {@link CpuPriority#LOW}
 *     lets request threads take the CPU first, so compactions fill idle time instead of queueing
 *     requests behind them (the flush thread keeps the normal priority)
 * @param env the clocks, threads and filesystem the engine uses ({@link Env#real()}; tests move
 *     the clocks by hand or inject faults through the filesystem): the wall clock behind record
 *     versions, tombstone expiry and expiring values; monotonic time for stalls, deadlines and
 *     logs; the flush, compaction and fsync threads; every file operation
 */
public record EngineOptions(
    SyncMode syncMode,
    long syncIntervalMillis,
    long memtableSizeBytes,
    int maxImmutableMemtables,
    long writeStallTimeoutMillis,
    int blockSizeBytes,
    int bloomBitsPerKey,
    Compression compression,
    long blockCacheBytes,
    boolean indexesInBlockCache,
    int l0CompactionTrigger,
    int l0SlowdownTrigger,
    int l0StopTrigger,
    long levelBaseBytes,
    long tableTargetBytes,
    long tombstoneGraceMillis,
    long diskReserveBytes,
    CpuPriority compactionPriority,
    Env env) {

  public EngineOptions {
    if (syncIntervalMillis <= 0) throw new IllegalArgumentException("syncIntervalMillis must be > 0");
    if (memtableSizeBytes < 64 * 1024) throw new IllegalArgumentException("memtableSizeBytes must be >= 64 KiB");
    if (maxImmutableMemtables < 1) throw new IllegalArgumentException("maxImmutableMemtables must be >= 1");
    if (writeStallTimeoutMillis < 0) throw new IllegalArgumentException("writeStallTimeoutMillis must be >= 0");
    if (blockSizeBytes < 256) throw new IllegalArgumentException("blockSizeBytes must be >= 256");
    if (bloomBitsPerKey < 0 || bloomBitsPerKey > 64) throw new IllegalArgumentException("bloomBitsPerKey must be in [0, 64]");
    Objects.requireNonNull(compression, "compression");
    if (blockCacheBytes < 0) throw new IllegalArgumentException("blockCacheBytes must be >= 0");
    if (l0CompactionTrigger < 1) throw new IllegalArgumentException("l0CompactionTrigger must be >= 1");
    if (l0SlowdownTrigger < l0CompactionTrigger) throw new IllegalArgumentException("l0SlowdownTrigger must be >= l0CompactionTrigger");
    if (l0StopTrigger < l0SlowdownTrigger || l0StopTrigger <= maxImmutableMemtables) {
      throw new IllegalArgumentException("l0StopTrigger must be >= l0SlowdownTrigger and > maxImmutableMemtables");
    }
    if (tableTargetBytes < 4096) throw new IllegalArgumentException("tableTargetBytes must be >= 4 KiB");
    if (levelBaseBytes < tableTargetBytes) throw new IllegalArgumentException("levelBaseBytes must be >= tableTargetBytes");
    if (tombstoneGraceMillis < 0) throw new IllegalArgumentException("tombstoneGraceMillis must be >= 0");
    if (diskReserveBytes < 0) throw new IllegalArgumentException("diskReserveBytes must be >= 0");
    Objects.requireNonNull(compactionPriority, "compactionPriority");
    Objects.requireNonNull(env, "env");
  }

  /**
   * The levels of a store: 0 to 6 (docs/format.md: a manifest that places a table elsewhere is
   * refused).
   */
  public static final int LEVELS = 7;

  /**
   * 16 MiB memtables; LZ4 blocks; a block cache of 32 MiB ({@link #DEFAULT_BLOCK_CACHE_BYTES}), filters
   * and indexes on top of it; L0 triggers
   * 4 / 20 / 36 (RocksDB's); a base level of at most 256 MiB (RocksDB's), 8 MiB tables;
   * tombstones kept a day; 64 MiB of disk
   * kept free for flushes; compactions at a low CPU priority. docs/design.md ("Compaction", "A full
   * disk", "Threads", "Block cache") says why.
   */
  public static EngineOptions defaults() {
    return new EngineOptions(SyncMode.INTERVAL, 200, 16L << 20, 2, 2_000, 4096, 10, Compression.LZ4,
        DEFAULT_BLOCK_CACHE_BYTES, false,
        4, 20, 36, 256L << 20, 8L << 20, 86_400_000L, 64L << 20, CpuPriority.LOW, Env.real());
  }

  /**
   * The block cache of {@link #defaults()}: 32 MiB, RocksDB's default size. Its blocks are native
   * memory, not heap (a node given a memory budget sizes its own: docs/operations.md).
   */
  public static final long DEFAULT_BLOCK_CACHE_BYTES = 32L << 20;

  /**
   * The most native memory the compaction thread holds in read-ahead windows: a compaction merges
   * one source per level-0 table (at most {@code l0StopTrigger} of them) and one per level below,
   * which share {@link ReadAhead#forCompaction}'s windows (16 MiB with the defaults). For a
   * memory budget.
   */
  public long compactionReadAheadBytes() {
    return ReadAhead.compactionBytes(l0StopTrigger + LEVELS - 1);
  }

  public EngineOptions withSyncMode(SyncMode v) {
    return new EngineOptions(v, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withSyncIntervalMillis(long v) {
    return new EngineOptions(syncMode, v, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withMemtableSizeBytes(long v) {
    return new EngineOptions(syncMode, syncIntervalMillis, v, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withMaxImmutableMemtables(int v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, v, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withWriteStallTimeoutMillis(long v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, v, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withBlockSizeBytes(int v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, v, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withBloomBitsPerKey(int v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, v, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withCompression(Compression v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, v, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withBlockCacheBytes(long v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, v, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  /** See {@code indexesInBlockCache}: filters and indexes charged to the block cache, or on top of it. */
  public EngineOptions withIndexesInBlockCache(boolean v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, v, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  /** Sets the three level-0 thresholds at once (they are checked against each other). */
  public EngineOptions withL0Triggers(int compaction, int slowdown, int stop) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, compaction, slowdown, stop, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  /** Sets {@code levelBaseBytes} and the output table size at once (checked against each other). */
  public EngineOptions withLevelSizes(long levelBase, long tableTarget) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBase, tableTarget, tombstoneGraceMillis, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withDiskReserveBytes(long v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, v, compactionPriority, env);
  }

  public EngineOptions withTombstoneGraceMillis(long v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, v, diskReserveBytes, compactionPriority, env);
  }

  public EngineOptions withCpuPriority(CpuPriority v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, v, env);
  }

  /** The engine's clocks, threads and files come from {@code v} (tests move time or inject faults with it). */
  public EngineOptions withEnv(Env v) {
    return new EngineOptions(syncMode, syncIntervalMillis, memtableSizeBytes, maxImmutableMemtables, writeStallTimeoutMillis, blockSizeBytes, bloomBitsPerKey, compression, blockCacheBytes, indexesInBlockCache, l0CompactionTrigger, l0SlowdownTrigger, l0StopTrigger, levelBaseBytes, tableTargetBytes, tombstoneGraceMillis, diskReserveBytes, compactionPriority, v);
  }

  /** The filesystem of {@link #env()}, which every file operation of the engine goes through. */
  public Vfs vfs() {
    return env.vfs();
  }
}
