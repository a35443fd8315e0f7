package dev.shale.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.TestSeed;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ZipfianKeysTest {
  @Test
  void drawsStayInTheKeySpaceAndTheHottestRanksDominate() {
    long seed = TestSeed.forTest("ZipfianKeysTest");
    SplittableRandom random = new SplittableRandom(seed);
    int n = 10_000;
    ZipfianKeys zipf = new ZipfianKeys(n);
    long[] rankCounts = new long[n];
    long[] keyCounts = new long[n];
    int draws = 200_000;
    for (int i = 0; i < draws; i++) {
      long rank = zipf.nextRank(random);
      rankCounts[(int) rank]++;
      long key = zipf.keyOf(rank);
      assertThat(key).isBetween(0L, n - 1L);
      keyCounts[(int) key]++;
    }
    // theta 0.99 over 10^4 keys: rank 0 takes about 1/zeta(n) ~ 10% of draws, the top 1% of
    // ranks over half; uniform would give 0.01% and 1%.
    assertThat(rankCounts[0]).isGreaterThan(draws / 20);
    assertThat(rankCounts[0]).isGreaterThan(rankCounts[1]).isGreaterThan(rankCounts[10]);
    assertThat(Arrays.stream(rankCounts, 0, n / 100).sum()).isGreaterThan(draws / 2);
    // Scattered over the key space (ranks map to keys by a hash: a few ranks may share a key),
    // the skew stays: rank 0's key is at least as hot as rank 0, and it is not k0.
    assertThat(keyCounts[(int) zipf.keyOf(0)]).isGreaterThanOrEqualTo(rankCounts[0]);
    assertThat(zipf.keyOf(0)).isNotZero();
  }
}
