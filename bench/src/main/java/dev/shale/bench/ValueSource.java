package dev.shale.bench;

import java.util.SplittableRandom;

/**
 * Values of random, incompressible bytes: slices at random offsets of a pool of seeded random
 * bytes (as db_bench does, without its compressible fraction). Each value is a new array,
 * because Shale's engine takes ownership of the arrays it is given. Thread safe: the pool is
 * read only; each thread passes its own random.
 */
final class ValueSource {
  private static final int MIN_POOL_BYTES = 1 << 20;

  private final byte[] pool;
  private final int valueSizeBytes;

  ValueSource(int valueSizeBytes, long seed) {
    this.valueSizeBytes = valueSizeBytes;
    // Twice the value at least, so values start at many different offsets.
    this.pool = new byte[Math.max(MIN_POOL_BYTES, 2 * valueSizeBytes)];
    new SplittableRandom(seed).nextBytes(pool);
  }

  byte[] next(SplittableRandom random) {
    byte[] value = new byte[valueSizeBytes];
    int offset = random.nextInt(pool.length - valueSizeBytes + 1);
    System.arraycopy(pool, offset, value, 0, valueSizeBytes);
    return value;
  }

  int valueSizeBytes() {
    return valueSizeBytes;
  }
}
