package dev.shale.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AtOnceTest {
  @Test
  void everyLoopRunsAndAllAreInFlightTogether() {
    List<Integer> items = List.of(0, 1, 2, 3);
    CountDownLatch started = new CountDownLatch(items.size());
    Set<Integer> done = ConcurrentHashMap.newKeySet();
    AtOnce.each(items, item -> {
      started.countDown();
      // Loops run one after another would never see the others start: the first would time out.
      assertThat(started.await(30, TimeUnit.SECONDS)).as("all loops started while loop %d waits", item).isTrue();
      done.add(item);
    });
    assertThat(done).containsExactlyInAnyOrderElementsOf(items);
  }

  @Test
  void aFailedLoopFailsTheCallerWithItsOwnError() {
    assertThatThrownBy(() -> AtOnce.each(List.of("a", "b"), item -> assertThat(item).isEqualTo("a")))
        .isInstanceOf(AssertionError.class).hasMessageContaining("\"b\"");
    assertThatThrownBy(() -> AtOnce.each(List.of("a"), item -> {
      throw new IOException("node " + item + " cannot be reached");
    })).isInstanceOf(AssertionError.class).hasRootCauseInstanceOf(IOException.class)
        .hasMessageContaining("node a cannot be reached");
  }
}
