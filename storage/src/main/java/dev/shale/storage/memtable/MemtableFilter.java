package dev.shale.storage.memtable;

import dev.shale.storage.util.Murmur3.Hash128;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A Bloom filter over the keys ever added to one memtable, so that a point read of a key the
 * memtable does not hold skips the skip-list search (RocksDB's memtable whole-key filter). Lives
 * on the heap only: nothing of it is persisted. Thread safety: one adder at a time (the memtable's
 * single writer), any number of probers at once.
 */
final class MemtableFilter {
  /*
   * Why. A get of a key the memtable lacks walks the skip list from top to bottom: some 20 levels,
   * each a node and its key array, cache misses all. The profile of readmissing after fillrandom,
   * overwrite and readrandom (docs/perf/engine.md, "Where Shale is behind, and why") put 72% of
   * the read's CPU there.
   *
   * Shape. Register-blocked: the key's h1 picks one 64-bit word and PROBES 6-bit slices of h2 pick
   * bits inside it, so an add is one read and one store and a probe one load, on the write path's budget.
   * A one-word block costs accuracy against a plain filter; at one bit per 8 memtable bytes (8
   * bits per key for the tombstone of a 16-byte key, 20 for a 100-byte value) false positives
   * stay in the low percents, in the tens of percents only for records of near-empty keys and
   * values, and one costs only the search the filter would have spared.
   *
   * Memory model. The single adder sets the bits with a release store before the record enters
   * the skip list (itself a release store); mayContain() reads them with an acquire load. So a
   * get that starts after an add completed sees the bits, and a reader that has once found the
   * record through the list (an acquire of its link) finds the bits set from then on: the filter
   * never hides a record a get could otherwise have seen. A filter never forgets a key. (With one
   * writer, no atomic read-modify-write is needed: the profile of a memtable insert put the
   * locked or at 13% of it.)
   */

  private static final int PROBES = 6;
  // 256 KiB of filter for a 16 MiB memtable. A record takes at least Memtable.MIN_RECORD_BYTES
  // (40) of it, so 5+ bits per key for empty keys, 8 for the tombstone of a 16-byte key. One bit
  // per 5 bytes (8+ bits per key always) was measured slower: readmissing lost 15-33% in three
  // paired runs (docs/perf/engine.md), the larger filters missing the cache more.
  private static final int BYTES_PER_BIT = 8;
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
    int index = wordIndex(hash);
    WORDS.setRelease(words, index, (long) WORDS.get(words, index) | mask(hash));
  }

  /** False if no key with this hash was ever added; true if one may have been. */
  boolean mayContain(Hash128 hash) {
    long mask = mask(hash);
    return ((long) WORDS.getAcquire(words, wordIndex(hash)) & mask) == mask;
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
