package dev.shale.server.peer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DownMarkTest {
  @Test
  void theBackOffDoublesFrom50MsToASecondAndEndsAtOnceWhenThePeerIsSeen() {
    DownMark down = new DownMark();
    assertThat(down.remainingMillis()).isZero();
    long[] expected = {50, 100, 200, 400, 800, 1000, 1000};
    for (long backoff : expected) {
      down.failed();
      assertThat(down.backoffMillis()).isEqualTo(backoff);
      assertThat(down.remainingMillis()).isBetween(0L, backoff);
    }
    down.cleared();
    assertThat(down.remainingMillis()).isZero();
    assertThat(down.backoffMillis()).isZero();
  }
}
