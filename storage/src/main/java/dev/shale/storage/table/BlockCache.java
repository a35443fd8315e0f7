package dev.shale.storage.table;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The data blocks of an engine's tables that have passed their crc check and been decompressed,
 * kept so that a hot block is checked and decompressed once rather than on every read
 * (docs/design.md, "Block cache"). Shared by every table of one engine; thread safe. Also counts
 * the engine's block reads from table files, cached or not.
 *
 * <p>Bounded by bytes: each block weighs its contents' size plus the cache's own per-entry
 * overhead, and Caffeine's W-TinyLFU policy picks what to evict (a scan's one-off blocks do not push
 * out the blocks gets keep coming back to). A block stored uncompressed is cached as a view of the
 * table's mapping (no copy: what the cache spares is its crc check), a compressed one as its
 * decompressed heap array. A capacity of 0 caches nothing: every read checks its block.
 *
 * <p>Invariant: the cache holds blocks of open tables only. A table forgets its blocks
 * ({@link #forget}) before it unmaps its file, and file numbers are never reused in a store, so
 * no view of an unmapped file is ever handed out.
 */
public final class BlockCache {
  /** What Caffeine spends per entry beyond the block (node, key, segment object), roughly. */
  static final int ENTRY_OVERHEAD_BYTES = 128;

  private record Key(long fileNumber, long blockOffset) {}

  private final long capacityBytes;
  private final @Nullable Cache<Key, MemorySegment> blocks; // null when capacityBytes is 0
  private final LongAdder reads = new LongAdder();
  private final LongAdder hits = new LongAdder();

  private BlockCache(long capacityBytes) {
    if (capacityBytes < 0) throw new IllegalArgumentException("block cache capacity must be >= 0: " + capacityBytes);
    this.capacityBytes = capacityBytes;
    this.blocks = capacityBytes == 0 ? null : Caffeine.newBuilder()
        .maximumWeight(capacityBytes)
        .weigher((Key key, MemorySegment block) -> weight(block))
        // Eviction runs on the thread that adds a block, not on the common pool: the engine's
        // threads are the only ones it takes time from, and a test sees the bound kept at once.
        .executor(Runnable::run)
        .build();
  }

  /** A cache of at most {@code capacityBytes} (0: none, every read checks its block). */
  public static BlockCache ofCapacity(long capacityBytes) {
    return new BlockCache(capacityBytes);
  }

  /** Block contents of file {@code fileNumber} at {@code blockOffset}, or null if not cached. */
  @Nullable MemorySegment get(long fileNumber, long blockOffset) {
    reads.increment();
    if (blocks == null) return null;
    MemorySegment block = blocks.getIfPresent(new Key(fileNumber, blockOffset));
    if (block != null) hits.increment();
    return block;
  }

  /** Keeps {@code contents}, checked, as block {@code blockOffset} of file {@code fileNumber}. */
  void put(long fileNumber, long blockOffset, MemorySegment contents) {
    if (blocks != null) blocks.put(new Key(fileNumber, blockOffset), contents);
  }

  /** Drops every block of file {@code fileNumber}: its table is about to be unmapped. */
  void forget(long fileNumber) {
    if (blocks != null) blocks.asMap().keySet().removeIf(key -> key.fileNumber() == fileNumber);
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** The weight of the blocks cached now, in bytes (contents and per-entry overhead). */
  public long usedBytes() {
    if (blocks == null) return 0;
    return blocks.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
  }

  /** Data blocks read from table files since this cache was made, found in it or not. */
  public long reads() {
    return reads.sum();
  }

  /** Of {@link #reads}, those found in the cache: read without a crc check or decompression. */
  public long hits() {
    return hits.sum();
  }

  private static int weight(MemorySegment block) {
    return (int) Math.min(Integer.MAX_VALUE, block.byteSize() + ENTRY_OVERHEAD_BYTES);
  }
}
