package dev.shale.load;

import java.util.SplittableRandom;

/**
 * Zipfian choice of 0..n-1 (rank 0 the most popular), theta 0.99 like YCSB, by Gray et al.'s
 * "Quickly generating billion-record synthetic databases" (SIGMOD 1994): zeta(n) is computed
 * once, in O(n), then each draw is O(1).
 *
 * <p>Ranks are scattered over the key space by a fixed hash so that the hot keys are not all
 * neighbours (k0, k1, ...), which would favour one table block.
 */
final class ZipfianKeys {
  static final double THETA = 0.99;

  private final long n;
  private final double alpha;
  private final double zetaN;
  private final double eta;
  private final double halfPowTheta;

  ZipfianKeys(long n) {
    this.n = n;
    double zeta2 = zeta(2);
    this.zetaN = zeta(n);
    this.alpha = 1.0 / (1.0 - THETA);
    this.eta = (1 - Math.pow(2.0 / n, 1 - THETA)) / (1 - zeta2 / zetaN);
    this.halfPowTheta = 1 + Math.pow(0.5, THETA);
  }

  private static double zeta(long count) {
    double sum = 0;
    for (long i = 1; i <= count; i++) sum += 1 / Math.pow(i, THETA);
    return sum;
  }

  /** The rank of the next draw: 0 is the most frequent. */
  long nextRank(SplittableRandom random) {
    double u = random.nextDouble();
    double uz = u * zetaN;
    if (uz < 1) return 0;
    if (uz < halfPowTheta) return Math.min(1, n - 1);
    return Math.min(n - 1, (long) (n * Math.pow(eta * u - eta + 1, alpha)));
  }

  /** The next key number in 0..n-1, hot ranks scattered by a bijective-enough hash. */
  long next(SplittableRandom random) {
    return keyOf(nextRank(random));
  }

  /** The key number a rank maps to; a few ranks may share one (the hash is not a bijection). */
  long keyOf(long rank) {
    // SplitMix64 of (rank + 1): the finaliser alone maps 0 to 0, which would keep rank 0 at k0.
    return Math.floorMod(mix((rank + 1) * 0x9e3779b97f4a7c15L), n);
  }

  // Stafford's variant 13 of the MurmurHash3 finaliser.
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
