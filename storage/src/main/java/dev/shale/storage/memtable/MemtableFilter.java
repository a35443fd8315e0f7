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
   * each a node and its key array, cache misses all. The profile of readmissing after fillrandom,
   * overwrite and readrandom (docs/perf/engine.md, "Where Shale is behind, and why") put 72% of
   * the read's CPU there.
   *
   * Shape. Register-blocked: the key's h1 picks one 64-bit word and PROBES 6-bit slices of h2 pick
   * bits inside it, so an add is one atomic or and a probe one load, on the write path's budget.
   * A one-word block costs accuracy against a plain filter; at one bit per 5 memtable bytes (a
   * record takes at least Memtable.MIN_RECORD_BYTES, so 8+ bits per key, 30 for 100-byte values)
   * false positives stay in the low percents at worst, and one costs only the search the filter
   * would have spared.
   *
   * Memory model. add() sets the bits with a volatile or before the record enters the skip list;
   * mayContain() reads them with a volatile load. So a reader that finds a bit clear read it
   * before the adder set it, hence before the record was in the map: the read is ordered before
   * that write, as it would have been without the filter. A filter never forgets a key.
   */

  private static final int PROBES = 6;
  // 410 KiB of filter for a 16 MiB memtable; a record takes at least Memtable.MIN_RECORD_BYTES
  // (40) of it: 8+ bits per key.
  private static final int BYTES_PER_BIT = 5;
  private static final int MIN_WORDS = 1;
  private static final int MAX_WORDS = 1 << 19; // 4 MiB of filter at most
  private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

  private final long[] words;

  /** A filter of one bit per {@value #BYTES_PER_BIT} bytes of a memtable of {@code memtableSizeBytes}. */
  MemtableFilter(long memtableSizeBytes) {
    long bits = memtableSizeBytes / BYTES_PER_BIT;
    this.words = new long[(int) Math.clamp(bits / Long.SIZE, MIN_WORDS, MAX_WORDS)];
  }

  void add(Hash128 hash) {
    WORDS.getAndBitwiseOr(words, wordIndex(hash), mask(hash));
  }

  /** False if no key with this hash was ever added; true if one may have been. */
  boolean mayContain(Hash128 hash) {
    long mask = mask(hash);
    return ((long) WORDS.getVolatile(words, wordIndex(hash)) & mask) == mask;
  }

  private int wordIndex(Hash128 hash) {
    return (int) Long.remainderUnsigned(hash.h1(), words.length);
  }

  private static long mask(Hash128 hash) {
    long mask = 0;
    long h2 = hash.h2();
    for (int i = 0; i < PROBES; i++) mask |= 1L << (h2 >>> (6 * i)); // shifts use the low 6 bits
    return mask;
  }
}
