package dev.shale.bench;

/**
 * A seeded pseudo-random permutation of {@code [0, n)} computed on the fly, so that fillrandom
 * writes every key exactly once in random order without holding n keys in memory (the store
 * may be many times larger than the heap).
 */
final class KeyPermutation {
  /*
   * Design. A 4-round Feistel network is a bijection on [0, 2^bits) for any round function;
   * "cycle walking" (apply it again while the result is >= n) turns it into a bijection on
   * [0, n): the walk from x < n stays on x's cycle, which returns below n. With 2^bits < 4n,
   * a walk takes fewer than 4 steps on average.
   */
  private static final int ROUNDS = 4;

  private final long n;
  private final int halfBits;
  private final long halfMask;
  private final long[] roundKeys = new long[ROUNDS];

  KeyPermutation(long n, long seed) {
    if (n < 1) throw new IllegalArgumentException("n must be >= 1: " + n);
    this.n = n;
    int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(n - 1));
    this.halfBits = (bits + 1) / 2;
    this.halfMask = (1L << halfBits) - 1;
    long s = seed;
    for (int r = 0; r < ROUNDS; r++) {
      s += 0x9E3779B97F4A7C15L;
      roundKeys[r] = mix(s);
    }
  }

  /** The image of {@code i} (0 <= i < n): every value of [0, n) is the image of exactly one i. */
  long apply(long i) {
    if (i < 0 || i >= n) throw new IllegalArgumentException("index " + i + " outside [0, " + n + ")");
    long x = i;
    do {
      x = encrypt(x);
    } while (x >= n);
    return x;
  }

  private long encrypt(long x) {
    long left = x >>> halfBits;
    long right = x & halfMask;
    for (int r = 0; r < ROUNDS; r++) {
      long next = left ^ (mix(right ^ roundKeys[r]) & halfMask);
      left = right;
      right = next;
    }
    return (left << halfBits) | right;
  }

  /** SplitMix64's finalizer: a strong 64-bit mixing function. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
