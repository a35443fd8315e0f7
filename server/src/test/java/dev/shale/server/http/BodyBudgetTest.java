package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BodyBudgetTest {
  @Test
  void reservesUpToTheLimitAndNoMore() {
    BodyBudget budget = new BodyBudget(100);
    assertThat(budget.tryReserve(60)).isTrue();
    assertThat(budget.tryReserve(41)).isFalse();
    assertThat(budget.tryReserve(40)).isTrue();
    assertThat(budget.tryReserve(1)).isFalse();
    assertThat(budget.tryReserve(0)).isTrue();
    budget.release(60);
    assertThat(budget.reservedBytes()).isEqualTo(40);
    assertThat(budget.tryReserve(60)).isTrue();
  }

  @Test
  void concurrentReservationsNeverPassTheLimit() throws Exception {
    BodyBudget budget = new BodyBudget(1000);
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      threads[t] = new Thread(() -> {
        for (int i = 0; i < 100_000; i++) {
          if (budget.tryReserve(7)) {
            assertThat(budget.reservedBytes()).isLessThanOrEqualTo(1000);
            budget.release(7);
          }
        }
      });
      threads[t].start();
    }
    for (Thread thread : threads) thread.join();
    assertThat(budget.reservedBytes()).isZero();
  }
}
