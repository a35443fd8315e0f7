package dev.shale.storage.table;

import static dev.shale.storage.table.TableFormat.U32;

import dev.shale.storage.util.Murmur3.Hash128;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * A table's Bloom filter, read into memory when the table opens (docs/format.md, "Filter"). It
 * answers "certainly absent" or "maybe present" for a key; a key of the table is never reported
 * absent. Immutable and thread safe once opened.
 */
final class BloomFilter {
  /** Do not change: embedded in on-disk data. */
  static final long SEED = 0;
  /** Do not change: embedded in on-disk data. */
  static final int MIN_BITS = 64;
  /** The largest bit_count a u32 holds that is a multiple of 8. Do not change: embedded in on-disk data. */
  static final long MAX_BITS = 0xFFFF_FFF8L;
  /** Do not change: embedded in on-disk data. */
  static final int MAX_PROBES = 30;

  private final MemorySegment bits;
  private final long bitCount;
  private final int numProbes;

  private BloomFilter(MemorySegment bits, long bitCount, int numProbes) {
    this.bits = bits;
    this.bitCount = bitCount;
    this.numProbes = numProbes;
  }

  /**
   * Checks the bytes of a {@code filter_block}, {@code filter} (where they lie, or a copy;
   * {@code fileOffset} names it in reports), its crc, then its fields, and returns a filter
   * reading its bits there. A failed check is not logged here: the table
   * opens without its filter and its owner reports that once.
   */
  static BloomFilter open(MemorySegment filter, long fileOffset, Path path) {
    long length = filter.byteSize();
    if (length < TableFormat.FILTER_OVERHEAD_BYTES + MIN_BITS / 8) {
      throw TableCorruption.unlogged(
          path, fileOffset, "filter block of " + length + " bytes is too short");
    }
    long crcOffset = length - 4;
    int stored = filter.get(U32, crcOffset);
    int actual = TableFormat.crc32c(filter.asSlice(0, crcOffset));
    if (stored != actual) throw TableCorruption.unlogged(path, fileOffset, "filter block fails its crc");

    int numProbes = filter.get(U32, 0);
    long bitCount = Integer.toUnsignedLong(filter.get(U32, 4));
    if (numProbes < 1 || numProbes > MAX_PROBES) {
      throw TableCorruption.unlogged(
          path, fileOffset, "filter num_probes " + numProbes + " is outside [1, " + MAX_PROBES + "]");
    }
    boolean fitsBlock = TableFormat.FILTER_OVERHEAD_BYTES + bitCount / 8 == length;
    if (bitCount < MIN_BITS || bitCount % 8 != 0 || !fitsBlock) {
      throw TableCorruption.unlogged(path, fileOffset,
          "filter bit_count " + bitCount + " does not match its block of " + length + " bytes");
    }
    return new BloomFilter(filter.asSlice(8, bitCount / 8), bitCount, numProbes);
  }

  /** False if the key hashed to {@code hash} is certainly not in the table. */
  boolean mightContain(Hash128 hash) {
    for (int i = 0; i < numProbes; i++) {
      long bit = probe(hash.h1(), hash.h2(), i, bitCount);
      if ((bits.get(ValueLayout.JAVA_BYTE, bit >>> 3) >> (bit & 7) & 1) == 0) return false;
    }
    return true;
  }

  /** Probe {@code i}'s bit: {@code (h1 + i * h2) mod bitCount}, in unsigned 64-bit arithmetic. */
  static long probe(long h1, long h2, int i, long bitCount) {
    return Long.remainderUnsigned(h1 + i * h2, bitCount);
  }

  /** {@code round(bitsPerKey * ln 2)}, clamped to [1, 30]. */
  static int numProbes(int bitsPerKey) {
    long probes = Math.round(bitsPerKey * Math.log(2));
    return Math.clamp(probes, 1, MAX_PROBES);
  }

  /** {@code max(64, keys * bitsPerKey)} rounded up to a multiple of 8, at most {@link #MAX_BITS}. */
  static long bitCount(long keys, int bitsPerKey) {
    long bits = Math.max(MIN_BITS, keys * bitsPerKey);
    return Math.min(MAX_BITS, (bits + 7) & ~7L);
  }
}
