package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CoordinatedReadBytesTest {
  final AnswerBudget budget = new AnswerBudget(1_000);
  final AnswerShare share = new AnswerShare(budget, 1_000, Runnable::run, () -> {});

  @Test
  void aDecidedReadKeepsItsAnswerAndOneValueNotItsReservation() {
    assertThat(share.tryTake(300)).isTrue(); // three replicas asked, 100 each
    CoordinatedReadBytes read = new CoordinatedReadBytes(share, 300);
    assertThat(read.decided(12, 10)).as("held by the answer's slot").isEqualTo(12);
    assertThat(share.heldBytes()).as("the answer and the value kept for read repair").isEqualTo(22);
    share.release(12); // the answer is written; a replica is still out
    assertThat(share.heldBytes()).isEqualTo(10);
    read.allIn();
    assertThat(share.heldBytes()).isZero();
    assertThat(budget.reservedBytes()).isZero();
  }

  @Test
  void aNewerLateAnswerIsCountedInsteadOfTheValueItReplaces() {
    assertThat(share.tryTake(200)).isTrue();
    CoordinatedReadBytes read = new CoordinatedReadBytes(share, 200);
    share.release(read.decided(5, 3)); // answered and written
    read.newerKept(400);
    assertThat(share.heldBytes()).as("larger than lately seen: counted, it is in memory").isEqualTo(400);
    read.newerKept(7);
    assertThat(share.heldBytes()).isEqualTo(7);
    read.allIn();
    assertThat(budget.reservedBytes()).isZero();
  }
}
