package dev.shale.storage.core;

import dev.shale.storage.Compression;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.SyncMode;
import java.util.List;

/**
 * The configurations {@link MetamorphicTest} runs the same operations under. Between them they
 * vary every setting that changes where a record lies and how it is read back, and none that
 * may change an answer: each codec; memtables that flush every few writes to one that flushes
 * only when told; level bases that push data through several levels or keep it in two; blocks
 * from the smallest allowed to 64 KiB; both sync modes; no block cache, a cache smaller than one
 * block, and a large one, with filters and indexes charged to it or not; Bloom filters or none;
 * and reads with O_DIRECT.
 *
 * <p>What they share, and why: tombstones are never purged (grace {@code Long.MAX_VALUE}), since
 * writes carry versions from any time (as in EngineModelTest) and a purged tombstone reads as
 * "absent" where one kept reads as itself, which would make answers depend on when compaction
 * ran; and a long stall timeout, since the test waits for the engine, never the other way.
 */
final class MetamorphicOptionSets {
  /** A named configuration; {@code directReads}: tables' blocks read with O_DIRECT (Vfs.realDirect). */
  record OptionSet(String name, EngineOptions options, boolean directReads) {
    @Override
    public String toString() {
      return name;
    }
  }

  private MetamorphicOptionSets() {}

  static List<OptionSet> all() {
    return List.of(
        new OptionSet("tiny-memtable-none-256B-blocks-no-cache", shared()
            .withCompression(Compression.NONE)
            .withMemtableSizeBytes(64 << 10)
            .withBlockSizeBytes(256)
            .withBlockCacheBytes(0)
            .withL0Triggers(2, 8, 12)
            .withLevelSizes(64 << 10, 16 << 10)
            .withSyncMode(SyncMode.INTERVAL)
            .withSyncIntervalMillis(20), false),
        new OptionSet("large-memtable-lz4-always-big-cache", shared()
            .withCompression(Compression.LZ4)
            .withMemtableSizeBytes(64 << 20)
            .withBlockSizeBytes(4096)
            .withBlockCacheBytes(32 << 20)
            .withSyncMode(SyncMode.ALWAYS), false),
        new OptionSet("zstd-small-cache-1K-blocks-no-bloom", shared()
            .withCompression(Compression.ZSTD)
            .withMemtableSizeBytes(128 << 10)
            .withBlockSizeBytes(1024)
            .withBlockCacheBytes(8 << 10) // smaller than many blocks: evictions all the time
            .withBloomBitsPerKey(0)
            .withL0Triggers(3, 10, 16)
            .withLevelSizes(256 << 10, 32 << 10)
            .withSyncMode(SyncMode.INTERVAL), false),
        new OptionSet("tiny-memtable-lz4-always-512B-blocks-deep-levels", shared()
            .withCompression(Compression.LZ4)
            .withMemtableSizeBytes(64 << 10)
            .withMaxImmutableMemtables(4)
            .withBlockSizeBytes(512)
            .withBlockCacheBytes(0)
            .withL0Triggers(1, 8, 12)
            .withLevelSizes(16 << 10, 4 << 10)
            .withSyncMode(SyncMode.ALWAYS), false),
        new OptionSet("zstd-64K-blocks-indexes-in-cache", shared()
            .withCompression(Compression.ZSTD)
            .withMemtableSizeBytes(256 << 10)
            .withBlockSizeBytes(64 << 10)
            .withBlockCacheBytes(256 << 10)
            .withIndexesInBlockCache(true)
            .withSyncMode(SyncMode.INTERVAL)
            .withSyncIntervalMillis(5), false),
        new OptionSet("none-always-1M-memtable-small-cache-wide-bloom", shared()
            .withCompression(Compression.NONE)
            .withMemtableSizeBytes(1 << 20)
            .withBlockSizeBytes(2048)
            .withBlockCacheBytes(64 << 10)
            .withBloomBitsPerKey(20)
            .withLevelSizes(1 << 20, 64 << 10)
            .withSyncMode(SyncMode.ALWAYS), false),
        new OptionSet("direct-reads-lz4-no-cache", shared()
            .withCompression(Compression.LZ4)
            .withMemtableSizeBytes(64 << 10)
            .withBlockSizeBytes(4096)
            .withBlockCacheBytes(0)
            .withL0Triggers(2, 8, 12)
            .withLevelSizes(128 << 10, 32 << 10)
            .withSyncMode(SyncMode.INTERVAL), true));
  }

  private static EngineOptions shared() {
    return EngineOptions.defaults()
        .withTombstoneGraceMillis(Long.MAX_VALUE)
        .withWriteStallTimeoutMillis(60_000);
  }
}
