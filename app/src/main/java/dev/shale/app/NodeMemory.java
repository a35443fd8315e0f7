package dev.shale.app;

import dev.shale.storage.EngineOptions;
import java.util.Locale;

/**
 * How a node spends the memory it is given ({@code --memory}): the JVM's heap, the JVM's own
 * memory beside it, the engine's memtables (the node's and its hint store's), the native memory
 * of answers waiting to be written (lent values), the read-ahead windows of scans and of the
 * compaction, room left to the page cache, and the block cache, which gets the rest and holds the
 * tables' filters and indexes too (docs/operations.md, "Memory").
 *
 * <p>Why each part is sized as it is:
 * <ul>
 *   <li>the heap is whatever the JVM was started with (the launcher gives {@code -Xmx} a quarter of
 *       {@code --memory} unless told otherwise), at most half of it;</li>
 *   <li>the JVM beside its heap: {@link #JVM_BYTES}, measured (Native Memory Tracking of a node
 *       under load: metaspace, code cache, thread stacks, GC structures, Netty's direct buffers,
 *       about 130 MiB), with room to spare;</li>
 *   <li>memtables: the most the engine keeps, {@code (maxImmutableMemtables + 1) x memtableSizeBytes},
 *       plus the hint store's {@link #HINT_STORE_MEMTABLE_BYTES};</li>
 *   <li>answers: the answer budget, which bounds answers on the heap and lent ones alike (a lent
 *       value is native memory), so as much native memory as it allows;</li>
 *   <li>the compaction: its read-ahead windows at most, {@link EngineOptions#compactionReadAheadBytes}
 *       (16 MiB with the defaults, which its sources share);</li>
 *   <li>scans: {@link #SCAN_BYTES} each (read-ahead windows of up to 256 KiB for eight table
 *       sources), as many as a sixteenth of the memory holds (32 a GiB), at most 256; a scan
 *       waiting for its client holds no windows (nor read view): only scans being read do;</li>
 *   <li>the page cache: an eighth, at least {@link #MIN_PAGE_CACHE_BYTES}, so that log and table
 *       writes and the reads the block cache misses have room without the kernel reclaiming under
 *       every request; with direct reads ({@code --direct-reads}) the reads the block cache misses
 *       bypass it, and it keeps only the floor, for writes, scans and compactions;</li>
 *   <li>the block cache (filters and indexes charged to it): the rest, at least
 *       {@link #MIN_BLOCK_CACHE_BYTES}; a smaller budget is refused.</li>
 * </ul>
 */
record NodeMemory(
    long totalBytes,
    long heapBytes,
    long memtableBytes,
    long compactionBytes,
    long answerBytes,
    int maxScans,
    long pageCacheBytes,
    long blockCacheBytes) {

  /** The JVM's own memory beside its heap, with room to spare (see the class comment). */
  static final long JVM_BYTES = 192L << 20;
  /** The hint store's memtables: three of 4 MiB (cluster's HintStore). */
  static final long HINT_STORE_MEMTABLE_BYTES = 12L << 20;
  /** What one scan may hold in read-ahead windows: eight table sources of 256 KiB. */
  static final long SCAN_BYTES = 2L << 20;
  /** The least room left to the page cache: log and table writes, scans' and compactions' reads. */
  static final long MIN_PAGE_CACHE_BYTES = 64L << 20;
  /** The smallest block cache a budget may leave (with the filters and indexes in it). */
  static final long MIN_BLOCK_CACHE_BYTES = 32L << 20;

  /**
   * The plan for {@code totalBytes} with a heap of {@code heapBytes}, memtables as {@code engine}
   * sizes them and an answer budget of {@code answerBudgetBytes}, gets reading their blocks past
   * the page cache if {@code directReads}; an IllegalArgumentException saying what does not fit.
   */
  static NodeMemory plan(long totalBytes, long heapBytes, EngineOptions engine, long answerBudgetBytes, boolean directReads) {
    if (heapBytes > totalBytes / 2) {
      throw new IllegalArgumentException("the heap (" + mib(heapBytes) + ", -Xmx) takes more than half of --memory "
          + mib(totalBytes) + ": start the JVM with a smaller -Xmx (SHALE_JAVA_OPTS), or give more memory");
    }
    long memtables = (engine.maxImmutableMemtables() + 1) * engine.memtableSizeBytes() + HINT_STORE_MEMTABLE_BYTES;
    int maxScans = (int) Math.max(1, Math.min(256, totalBytes / 16 / SCAN_BYTES));
    long pageCache = directReads ? MIN_PAGE_CACHE_BYTES : Math.max(MIN_PAGE_CACHE_BYTES, totalBytes / 8);
    long compaction = engine.compactionReadAheadBytes();
    long fixed = heapBytes + JVM_BYTES + memtables + compaction + answerBudgetBytes + maxScans * SCAN_BYTES + pageCache;
    long blockCache = totalBytes - fixed;
    if (blockCache < MIN_BLOCK_CACHE_BYTES) {
      throw new IllegalArgumentException("--memory " + mib(totalBytes) + " is too small: the heap (" + mib(heapBytes)
          + "), the JVM beside it (" + mib(JVM_BYTES) + "), memtables (" + mib(memtables) + "), the compaction ("
          + mib(compaction) + "), answers ("
          + mib(answerBudgetBytes) + "), scans (" + mib(maxScans * SCAN_BYTES) + ") and the page cache (" + mib(pageCache)
          + ") leave " + mib(Math.max(0, blockCache)) + " for the block cache, filters and indexes, under the "
          + mib(MIN_BLOCK_CACHE_BYTES) + " it needs");
    }
    return new NodeMemory(totalBytes, heapBytes, memtables, compaction, answerBudgetBytes, maxScans, pageCache, blockCache);
  }

  /** One line for the log: the budget and its parts. */
  String describe() {
    return "memory " + mib(totalBytes) + ": heap " + mib(heapBytes) + ", JVM " + mib(JVM_BYTES) + ", memtables "
        + mib(memtableBytes) + ", compaction " + mib(compactionBytes) + ", answers " + mib(answerBytes) + ", " + maxScans + " scans " + mib(maxScans * SCAN_BYTES)
        + ", page cache " + mib(pageCacheBytes) + ", block cache with filters and indexes " + mib(blockCacheBytes);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%d MiB", bytes >> 20);
  }
}
