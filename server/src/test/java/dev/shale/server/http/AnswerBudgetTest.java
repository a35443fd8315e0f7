package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class AnswerBudgetTest {
  final AnswerBudget budget = new AnswerBudget(100);
  // Stands for the connections' event loops: grants run when the test says so.
  final Queue<Runnable> loop = new ArrayDeque<>();
  final Executor executor = loop::add;
  final List<String> granted = new ArrayList<>();

  @Test
  void reservesWhatFitsAndNoMore() {
    assertThat(budget.tryReserve(60)).isTrue();
    assertThat(budget.tryReserve(50)).isFalse();
    assertThat(budget.tryReserve(40)).isTrue();
    assertThat(budget.reservedBytes()).isEqualTo(100);
    budget.release(100);
    assertThat(budget.reservedBytes()).isZero();
  }

  @Test
  void parkedReservationsAreGrantedInOrderAsBytesComeBack() {
    assertThat(budget.tryReserve(90)).isTrue();
    park(50, "a");
    park(10, "b"); // would fit now, but comes after a: no overtaking
    assertThat(budget.tryReserve(10)).as("nobody jumps the line").isFalse();
    runLoop();
    assertThat(granted).isEmpty();
    budget.release(50);
    runLoop();
    assertThat(granted).containsExactly("a", "b");
    assertThat(budget.reservedBytes()).isEqualTo(40 + 50 + 10);
  }

  @Test
  void aCancelledReservationLetsTheNextOneThrough() {
    assertThat(budget.tryReserve(60)).isTrue();
    AnswerBudget.Parked big = park(80, "big");
    park(30, "small");
    assertThat(budget.cancel(big)).isTrue();
    runLoop();
    assertThat(granted).containsExactly("small");
    assertThat(budget.reservedBytes()).isEqualTo(90);
  }

  @Test
  void aGrantedReservationCannotBeCancelled() {
    AnswerBudget.Parked parked = park(20, "a"); // fits: granted at once, run on the loop
    assertThat(budget.cancel(parked)).isFalse();
    assertThat(budget.reservedBytes()).isEqualTo(20);
  }

  @Test
  void aGrantWhoseLoopIsGoneGivesTheBytesBack() {
    assertThat(budget.tryReserve(100)).isTrue();
    budget.park(30, command -> {
      throw new java.util.concurrent.RejectedExecutionException("shut down");
    }, () -> granted.add("never"));
    budget.release(100);
    assertThat(budget.reservedBytes()).isZero();
    assertThat(granted).isEmpty();
  }

  @Test
  void noReservationIsLargerThanTheBudgetAndForcedBytesAreCounted() {
    assertThat(budget.fit(1_000)).isEqualTo(100);
    assertThatThrownBy(() -> budget.tryReserve(101)).isInstanceOf(IllegalArgumentException.class);
    budget.forceReserve(150); // a value larger than its reservation, already read
    assertThat(budget.reservedBytes()).isEqualTo(150);
    assertThat(budget.tryReserve(1)).isFalse();
  }

  private AnswerBudget.Parked park(long bytes, String name) {
    return budget.park(bytes, executor, () -> granted.add(name));
  }

  private void runLoop() {
    for (Runnable r = loop.poll(); r != null; r = loop.poll()) r.run();
  }
}
