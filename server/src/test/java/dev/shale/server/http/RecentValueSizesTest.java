package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecentValueSizesTest {
  long now = 5_000;
  final RecentValueSizes sizes = new RecentValueSizes(64 << 10, 16 << 20, () -> now);

  @Test
  void theEstimateFollowsTheLargestValueOfTheLastTwoWindowsWithinFloorAndCeiling() {
    assertThat(sizes.largest()).as("nothing seen: the floor").isEqualTo(64 << 10);
    sizes.note(1_000);
    assertThat(sizes.largest()).as("below the floor").isEqualTo(64 << 10);
    sizes.note(1 << 20);
    sizes.note(200 << 10);
    assertThat(sizes.largest()).isEqualTo(1 << 20);
    now += RecentValueSizes.WINDOW_NANOS;
    assertThat(sizes.largest()).as("the previous window still counts").isEqualTo(1 << 20);
    now += RecentValueSizes.WINDOW_NANOS;
    assertThat(sizes.largest()).as("two windows without a large value").isEqualTo(64 << 10);
    sizes.note(100 << 20);
    assertThat(sizes.largest()).as("never above the largest value accepted").isEqualTo(16 << 20);
    now += 5 * RecentValueSizes.WINDOW_NANOS;
    assertThat(sizes.largest()).as("after a long quiet, both windows are empty").isEqualTo(64 << 10);
  }
}
