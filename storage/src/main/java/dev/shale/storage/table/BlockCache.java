package dev.shale.storage.table;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The data blocks of an engine's tables that have been read, checked against their crc and
 * decompressed, kept in native memory so that a hot block costs no disk read, no check and no
 * decompression (docs/design.md, "Block cache"). Shared by every table of one engine; thread safe.
 * Also counts the engine's block reads from table files, cached or not.
 *
 * <p>Bounded by bytes: each block weighs its native memory plus the cache's own per-entry
 * overhead (on the heap), and Caffeine's W-TinyLFU policy picks what to evict (a block read once
 * is admitted only over a colder one, so scans and compactions, which do not add their blocks,
 * and one-off gets cannot push out the blocks gets keep coming back to). A capacity of 0 caches
 * nothing: every read loads its block.
 *
 * <p>Lifetime: the cache holds one reference on each block it keeps ({@link LoadedBlock}), and
 * gives it back when the block is evicted, replaced or forgotten; a reader takes its own reference
 * with {@link #acquire}, so an eviction never frees a block a read is using. Blocks of a closed
 * table are {@linkplain #forget forgotten} when it closes; file numbers are never reused in a
 * store, so a block found under a key is always the block of that table.
 */
public final class BlockCache {
  /** What Caffeine spends per entry beyond the block (node, key), roughly; heap, counted here too. */
  static final int ENTRY_OVERHEAD_BYTES = 128;

  private record Key(long fileNumber, long blockOffset) {}

  private final long capacityBytes;
  private final boolean residentCharged; // filters and indexes take their room from the blocks'
  private final @Nullable Cache<Key, LoadedBlock> blocks; // null when capacityBytes is 0
  // Native memory of the open tables' filters and indexes, which stay resident (Table).
  private final AtomicLong residentBytes = new AtomicLong();
  private final LongAdder reads = new LongAdder();
  // Native memory of every live block of the engine: cached, pinned by reads, or lent.
  private final LongAdder heldBytes = new LongAdder();
  private final LongAdder hits = new LongAdder();

  private BlockCache(long capacityBytes, boolean residentCharged) {
    if (capacityBytes < 0) throw new IllegalArgumentException("block cache capacity must be >= 0: " + capacityBytes);
    this.capacityBytes = capacityBytes;
    this.residentCharged = residentCharged;
    this.blocks = capacityBytes == 0 ? null : Caffeine.newBuilder()
        .maximumWeight(capacityBytes)
        .weigher((Key key, LoadedBlock block) -> weight(block))
        // Every way out of the cache (evicted, replaced, forgotten) gives its reference back.
        .removalListener((@Nullable Key key, @Nullable LoadedBlock block, RemovalCause cause) -> {
          if (block != null) block.release();
        })
        // Eviction and its releases run on the thread that adds a block, not on the common pool:
        // the engine's threads are the only ones it takes time from, a test sees the bound kept
        // at once, and freed memory is free when put() returns.
        .executor(Runnable::run)
        .build();
  }

  /** A cache of at most {@code capacityBytes} (0: none, every read loads its block). */
  public static BlockCache ofCapacity(long capacityBytes) {
    return new BlockCache(capacityBytes, false);
  }

  /**
   * A cache of at most {@code capacityBytes} for blocks, filters and indexes together: the open
   * tables' filters and indexes ({@link #addResident}) stay resident, and cached blocks get the
   * rest (none once they take it all). RocksDB's {@code cache_index_and_filter_blocks} with pinning.
   */
  public static BlockCache withResidentCharged(long capacityBytes) {
    return new BlockCache(capacityBytes, true);
  }

  /**
   * Block {@code blockOffset} of file {@code fileNumber} with a reference for the caller, who
   * releases it; null if it is not cached. Counts a block read either way.
   */
  @Nullable LoadedBlock acquire(long fileNumber, long blockOffset) {
    reads.increment();
    LoadedBlock block = acquireUncounted(fileNumber, blockOffset);
    if (block != null) hits.increment();
    return block;
  }

  /**
   * As {@link #acquire}, counting nothing: for a read that tries the cache alone and may give up
   * (then it reads again, counted). One that does not give up counts its blocks with
   * {@link #countCachedReads}.
   */
  @Nullable LoadedBlock acquireUncounted(long fileNumber, long blockOffset) {
    if (blocks == null) return null;
    LoadedBlock block = blocks.getIfPresent(new Key(fileNumber, blockOffset));
    // An eviction between the lookup and the retain frees the block: then it is a miss.
    return block == null || !block.tryRetain() ? null : block;
  }

  /** Counts {@code blockCount} block reads found in the cache ({@link #acquireUncounted}). */
  public void countCachedReads(int blockCount) {
    reads.add(blockCount);
    hits.add(blockCount);
  }

  /**
   * Offers {@code block}, just loaded, as block {@code blockOffset} of file {@code fileNumber}; the
   * cache takes a reference of its own if it keeps it. The caller keeps its own.
   */
  void offer(long fileNumber, long blockOffset, LoadedBlock block) {
    if (blocks == null || !block.tryRetain()) return;
    blocks.put(new Key(fileNumber, blockOffset), block);
  }

  /** Drops block {@code blockOffset} of file {@code fileNumber}, if cached: its table is closing. */
  void forget(long fileNumber, long blockOffset) {
    if (blocks != null) blocks.invalidate(new Key(fileNumber, blockOffset));
  }

  /** The count every block loaded for this cache's engine adds its native memory to while it lives. */
  LongAdder heldBytesCounter() {
    return heldBytes;
  }

  /**
   * Native memory held by the engine's table blocks now: those cached, and those read or lent
   * outside the cache (a get's blocks until it has copied its value, a lent value's block until the
   * lease closes).
   */
  public long heldBytes() {
    return heldBytes.sum();
  }

  /**
   * Counts {@code bytes} (negative: gives them back) of a table's filter and index, read into
   * memory for as long as the table is open; if they are charged to this cache, the room for
   * blocks shrinks or grows by as much, and blocks past it are evicted at once.
   */
  void addResident(long bytes) {
    residentBytes.addAndGet(bytes);
    if (residentCharged && blocks != null) resizeForResident(blocks);
  }

  // Synchronized: tables open and close on several threads, and the last resize must see the last count.
  private synchronized void resizeForResident(Cache<Key, LoadedBlock> cache) {
    long room = Math.max(0, capacityBytes - residentBytes.get());
    cache.policy().eviction().ifPresent(eviction -> eviction.setMaximum(room));
  }

  /** Native memory held by the open tables' filters and indexes now. */
  public long residentBytes() {
    return residentBytes.get();
  }

  /** Whether filters and indexes are charged to this cache ({@link #withResidentCharged}). */
  public boolean residentCharged() {
    return residentCharged;
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** The weight of the blocks cached now, in bytes (their native memory and per-entry overhead). */
  public long usedBytes() {
    if (blocks == null) return 0;
    return blocks.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
  }

  /** Data blocks read from table files since this cache was made, found in it or not. */
  public long reads() {
    return reads.sum();
  }

  /** Of {@link #reads}, those found in the cache: read without I/O, crc check or decompression. */
  public long hits() {
    return hits.sum();
  }

  private static int weight(LoadedBlock block) {
    return (int) Math.min(Integer.MAX_VALUE, block.memoryBytes() + ENTRY_OVERHEAD_BYTES);
  }
}
