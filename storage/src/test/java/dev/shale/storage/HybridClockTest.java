package dev.shale.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HybridClockTest {
  private static final long NOW_MILLIS = 1_800_000_000_000L;

  private final AtomicLong wallMillis = new AtomicLong(NOW_MILLIS);
  private final HybridClock clock = new HybridClock(wallMillis::get);

  @Test
  void versionsFollowTheWallClockAndOnlyGrow() {
    long first = clock.next();
    assertThat(first).isEqualTo(Versions.of(NOW_MILLIS, 0));
    assertThat(clock.next()).isEqualTo(first + 1);
    wallMillis.set(NOW_MILLIS - 5_000); // the wall clock went back: only the logical counter moves
    assertThat(clock.next()).isEqualTo(first + 2);
  }

  @Test
  void aVersionWithinReachIsFollowed() {
    long ahead = Versions.of(NOW_MILLIS + HybridClock.MAX_AHEAD_MILLIS, 9);
    assertThat(clock.observe(ahead)).isTrue();
    assertThat(clock.next()).isEqualTo(ahead + 1);
  }

  @Test
  void anAbsurdVersionFromElsewhereDoesNotDragTheClock() {
    long before = clock.next();
    for (long absurd : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 50, Versions.of(NOW_MILLIS + HybridClock.MAX_AHEAD_MILLIS + 1, 0)}) {
      assertThat(clock.observe(absurd)).as("observe(%d)", absurd).isFalse();
      assertThat(clock.isWithinReach(absurd)).isFalse();
    }
    long after = clock.next();
    assertThat(after).isEqualTo(before + 1);
    for (int i = 0; i < 100; i++) {
      long next = clock.next();
      assertThat(next).isGreaterThan(after);
      after = next;
    }
  }

  @Test
  void aClockAtTheHighestVersionFailsInsteadOfWrapping() {
    clock.recover(Long.MAX_VALUE - 50); // stored data from before versions were bounded
    long previous = clock.current();
    for (int i = 0; i < 50; i++) {
      long next = clock.next();
      assertThat(next).isGreaterThan(previous).isPositive();
      previous = next;
    }
    assertThat(previous).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(clock::next).isInstanceOf(StorageException.class).hasMessageContaining("the clock cannot advance");
    assertThatThrownBy(clock::next).isInstanceOf(StorageException.class);
    assertThat(clock.current()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aWallClockOutsideTheVersionsRangeIsAnError() {
    wallMillis.set(Versions.MAX_PHYSICAL_MILLIS + 1);
    assertThatThrownBy(clock::next).isInstanceOf(StorageException.class).hasMessageContaining("outside what a version can hold");
    wallMillis.set(Versions.MAX_PHYSICAL_MILLIS);
    assertThat(clock.next()).isPositive();
  }
}
