package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Queue;
import org.junit.jupiter.api.Test;

class AnswerShareTest {
  final AnswerBudget budget = new AnswerBudget(100);
  final Queue<Runnable> loop = new ArrayDeque<>();
  int rooms; // times a waiting read was told to ask again

  AnswerShare share(long shareBytes) {
    return new AnswerShare(budget, shareBytes, loop::add, () -> rooms++);
  }

  @Test
  void aConnectionHoldsAtMostItsShareButAlwaysOneAnswer() {
    AnswerShare share = share(25);
    assertThat(share.tryTake(20)).isTrue();
    assertThat(share.tryTake(20)).as("over the share").isFalse();
    assertThat(share.isFull()).isFalse();
    share.release(20);
    runLoop();
    assertThat(rooms).isEqualTo(1);
    assertThat(share.tryTake(40)).as("alone, more than its share").isTrue();
    assertThat(share.isFull()).isTrue();
  }

  @Test
  void aReadSettlesToItsAnswersSize() {
    AnswerShare share = share(100);
    assertThat(share.tryTake(50)).isTrue();
    assertThat(share.settle(50, 3)).isEqualTo(3);
    assertThat(budget.reservedBytes()).isEqualTo(3);
    assertThat(share.tryTake(50)).isTrue();
    assertThat(share.settle(50, 70)).as("a value larger than its reservation").isEqualTo(70);
    assertThat(budget.reservedBytes()).isEqualTo(73);
    assertThat(share.heldBytes()).isEqualTo(73);
  }

  @Test
  void aReadThatWaitedForTheNodeStartsWithTheBytesGrantedToIt() {
    AnswerShare other = share(100);
    AnswerShare share = share(100);
    assertThat(other.tryTake(90)).isTrue();
    assertThat(share.tryTake(30)).isFalse();
    assertThat(share.tryTake(30)).as("still parked").isFalse();
    other.release(90);
    runLoop();
    assertThat(rooms).as("share's grant; other held nothing back and is owed no room").isEqualTo(1);
    assertThat(share.tryTake(30)).isTrue();
    assertThat(budget.reservedBytes()).isEqualTo(30);
  }

  @Test
  void aClosedConnectionGivesBackWhatItWasGrantedOrWaitedFor() {
    AnswerShare other = share(100);
    AnswerShare parked = share(100);
    AnswerShare granted = share(100);
    assertThat(other.tryTake(100)).isTrue();
    assertThat(granted.tryTake(40)).isFalse();
    assertThat(parked.tryTake(60)).isFalse();
    other.release(100);
    runLoop(); // granted gets its 40 and parked its 60
    granted.close();
    parked.close();
    runLoop();
    assertThat(budget.reservedBytes()).isZero();
  }

  @Test
  void givingBackBytesCallsForRoomOnlyWhereAReadWasHeldBackOrTheShareWasFull() {
    AnswerShare share = share(100);
    assertThat(share.tryTake(30)).isTrue();
    share.release(30);
    runLoop();
    assertThat(rooms).as("nothing waited: no task per answer").isZero();
    assertThat(share.tryTake(100)).isTrue();
    assertThat(share.isFull()).isTrue();
    share.release(100);
    runLoop();
    assertThat(rooms).as("the connection was not read while full").isEqualTo(1);
  }

  private void runLoop() {
    for (Runnable r = loop.poll(); r != null; r = loop.poll()) r.run();
  }
}
