package dev.shale.server.peer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.ManualClockEnv;
import org.junit.jupiter.api.Test;

class DownMarkTest {
  private final ManualClockEnv env = new ManualClockEnv(0);
  private final DownMark down = new DownMark(env::nanoTime);

  @Test
  void theBackOffDoublesFrom50MsToASecondAndEndsAtOnceWhenThePeerIsSeen() {
    assertThat(down.remainingMillis()).isZero();
    long[] expected = {50, 100, 200, 400, 800, 1000, 1000};
    for (long backoff : expected) {
      down.failed();
      assertThat(down.backoffMillis()).isEqualTo(backoff);
      assertThat(down.remainingMillis()).isEqualTo(backoff); // the node's clock has not moved
    }
    down.cleared();
    assertThat(down.remainingMillis()).isZero();
    assertThat(down.backoffMillis()).isZero();
  }

  @Test
  void aBackOffRunsOutOnTheNodesClockAndTheNextFailureDoublesIt() {
    down.failed();
    env.advanceMillis(49);
    assertThat(down.remainingMillis()).isEqualTo(1);

    env.advanceMillis(1);
    assertThat(down.remainingMillis()).isZero(); // attempts may be made again, the back-off is kept
    assertThat(down.backoffMillis()).isEqualTo(50);

    down.failed();
    assertThat(down.remainingMillis()).isEqualTo(100);
  }
}
