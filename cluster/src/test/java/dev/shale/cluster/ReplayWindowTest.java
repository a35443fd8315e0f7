package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReplayWindowTest {
  private static final long NOW = 1_800_000_000_000L;
  private static final long HIGHEST = 5_000_000;

  private final ReplayWindow window = new ReplayWindow();

  @Test
  void theWindowsEdgesAreExact() {
    assertThat(window.accept(HIGHEST, NOW, NOW)).isEmpty();
    assertThat(window.accept(HIGHEST - ReplayWindow.SIZE, NOW, NOW)).get().asString().contains("below the replay window");
    assertThat(window.accept(HIGHEST - ReplayWindow.SIZE + 1, NOW, NOW)).isEmpty();
    assertThat(window.accept(HIGHEST - ReplayWindow.SIZE + 1, NOW, NOW)).get().asString().contains("taken already");
    assertThat(window.accept(HIGHEST, NOW, NOW)).get().asString().contains("taken already");
    assertThat(window.accept(HIGHEST - 1, NOW, NOW)).isEmpty();
  }

  @Test
  void movingUpForgetsWhatLeavesTheWindowButNotWhatStays() {
    assertThat(window.accept(HIGHEST, NOW, NOW)).isEmpty();
    assertThat(window.accept(HIGHEST + 100, NOW, NOW)).isEmpty();
    assertThat(window.accept(HIGHEST, NOW, NOW)).get().asString().contains("taken already");
    // The slots of the numbers that entered the window held old numbers' bits: cleared.
    assertThat(window.accept(HIGHEST + ReplayWindow.SIZE, NOW, NOW)).isEmpty();
    assertThat(window.accept(HIGHEST + 101, NOW, NOW)).isEmpty();
    assertThat(window.accept(HIGHEST + 100, NOW, NOW)).as("still in the window").get().asString().contains("taken already");
    assertThat(window.accept(HIGHEST, NOW, NOW)).get().asString().contains("below the replay window");
    assertThat(window.accept(HIGHEST + 3 * ReplayWindow.SIZE, NOW, NOW)).isEmpty();
    assertThat(window.accept(HIGHEST + 3 * ReplayWindow.SIZE - 1, NOW, NOW)).isEmpty();
  }

  @Test
  void aSenderWhoseNumbersWentBackIsHeardOnceEverythingTakenIsStale() {
    assertThat(window.accept(HIGHEST, NOW, NOW)).isEmpty();
    assertThat(window.accept(10, NOW + 1, NOW + 1)).get().asString().contains("below the replay window");
    assertThat(window.accept(10, NOW + InternalAuth.MAX_SKEW_MILLIS, NOW + InternalAuth.MAX_SKEW_MILLIS))
        .as("the request of HIGHEST could still pass the time check").isPresent();
    long later = NOW + InternalAuth.MAX_SKEW_MILLIS + 1;
    assertThat(window.accept(10, later, later)).isEmpty();
    assertThat(window.accept(10, later, later)).get().asString().contains("taken already");
  }
}
