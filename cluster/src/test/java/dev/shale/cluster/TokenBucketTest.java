package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenBucketTest {
  static final long SECOND = 1_000_000_000L;

  @Test
  void aBurstOfATenthOfASecondThenTheRate() {
    TokenBucket bucket = new TokenBucket(100, 0);
    int taken = drain(bucket, 0);
    assertThat(taken).isEqualTo(10);
    assertThat(bucket.nanosUntilAvailable(0)).isEqualTo(SECOND / 100);
    assertThat(drain(bucket, SECOND / 100)).isEqualTo(1);
    assertThat(drain(bucket, SECOND)).as("a second later: capped at the burst").isEqualTo(10);
  }

  @Test
  void aCostlyTakeRunsIntoDebtThatLaterTakesWaitOut() {
    TokenBucket bucket = new TokenBucket(10, 0); // burst 1
    assertThat(bucket.nanosUntilAvailable(0)).isZero();
    bucket.take(5, 0);
    assertThat(bucket.nanosUntilAvailable(0)).isEqualTo(5 * SECOND / 10);
    assertThat(bucket.nanosUntilAvailable(5 * SECOND / 10)).isZero();
  }

  @Test
  void overAnyIntervalTheTakesStayWithinBurstPlusRate() {
    TokenBucket bucket = new TokenBucket(1_000, 0);
    long now = 0;
    int taken = 0;
    while (now < 3 * SECOND) {
      long wait = bucket.nanosUntilAvailable(now);
      if (wait == 0) {
        bucket.take(1, now);
        taken++;
      } else {
        now += wait;
      }
    }
    assertThat(taken).isBetween(3_000, 3_000 + 100 + 1);
  }

  private static int drain(TokenBucket bucket, long now) {
    int taken = 0;
    while (bucket.nanosUntilAvailable(now) == 0) {
      bucket.take(1, now);
      taken++;
    }
    return taken;
  }
}
