package dev.shale.storage.memtable;

import dev.shale.storage.util.Murmur3.Hash128;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A Bloom filter over the keys ever added to one memtable, so that a point read of a key the
 * memtable does not hold skips the skip-list search (RocksDB's memtable whole-key filter). Lives
 * on the heap only: nothing of it is persisted. Thread safe: any number of adders and probers.
 */
final class MemtableFilter {
  /*
   * Why. A get of a key the memtable lacks walks the skip list from top to bottom: some 20 levels,
   * each a node and its key array, cache misses all. The profile of readmissing after fillrandom
   * (docs/perf/engine.md, "Where Shale is behind") put 62% of the read's CPU there.
   *
   * Shape. Blocked: the key's h1 picks one 512-bit block (one 64-byte cache line), and PROBES
   * 9-bit slices of h2 pick bits inside it, so a probe costs one cache miss. The block costs a
   * little accuracy against a plain filter; at one bit per memtable byte (a record counts at least
   * Memtable.RECORD_OVERHEAD_BYTES, so 8+ bits per key, 20+ for 100-byte values) it stays around
   * 1% or better, and a false positive costs only the search the filter would have spared.
   *
   * Memory model. add() sets the bits with a volatile or before the record enters the skip list;
   * mayContain() reads them with volatile loads. So a reader that finds a bit clear read it before
   * the adder set it, hence before the record was in the map: the read is ordered before that
   * write, as it would have been without the filter. A filter never forgets a key.
   */

  private static final int BLOCK_LONGS = 8; // 512 bits: one cache line
  private static final int PROBES = 6;
  private static final int MIN_BLOCKS = 1;
  private static final int MAX_BLOCKS = 1 << 16; // 4 MiB of filter at most
  private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

  private final long[] words;
  private final int blocks;

  /** A filter of one bit per byte of a memtable of {@code memtableSizeBytes}. */
  MemtableFilter(long memtableSizeBytes) {
    long wanted = memtableSizeBytes / (BLOCK_LONGS * Long.SIZE);
    this.blocks = (int) Math.clamp(wanted, MIN_BLOCKS, MAX_BLOCKS);
    this.words = new long[blocks * BLOCK_LONGS];
  }

  void add(Hash128 hash) {
    int base = blockBase(hash);
    long h2 = hash.h2();
    for (int i = 0; i < PROBES; i++) {
      int bit = (int) (h2 >>> (9 * i)) & 511;
      WORDS.getAndBitwiseOr(words, base + (bit >>> 6), 1L << bit);
    }
  }

  /** False if no key with this hash was ever added; true if one may have been. */
  boolean mayContain(Hash128 hash) {
    int base = blockBase(hash);
    long h2 = hash.h2();
    for (int i = 0; i < PROBES; i++) {
      int bit = (int) (h2 >>> (9 * i)) & 511;
      long word = (long) WORDS.getVolatile(words, base + (bit >>> 6));
      if ((word & (1L << bit)) == 0) return false;
    }
    return true;
  }

  /** Heap bytes of the bit array. */
  long sizeBytes() {
    return (long) words.length * Long.BYTES;
  }

  private int blockBase(Hash128 hash) {
    return (int) Long.remainderUnsigned(hash.h1(), blocks) * BLOCK_LONGS;
  }
}
