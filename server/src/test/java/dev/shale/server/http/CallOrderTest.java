package dev.shale.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallOrderTest {
  // The answer bytes the connection may still take: reads that need more wait.
  long answerBytesLeft = Long.MAX_VALUE;
  final CallOrder order = new CallOrder(bytes -> {
    if (bytes > answerBytesLeft) return false;
    answerBytesLeft -= bytes;
    return true;
  });
  final List<String> started = new ArrayList<>();

  @Test
  void aReadWhoseAnswerBytesAreNotToBeHadWaitsAndSoDoesEveryCallAfterIt() {
    answerBytesLeft = 10;
    order.submit(false, 8, () -> started.add("r1"));
    order.submit(false, 8, () -> started.add("r2"));
    submit(true, "w");
    submit(false, "r3"); // needs no answer bytes, but comes after r2
    assertThat(started).containsExactly("r1");
    order.resume(); // nothing was given back: still waiting
    assertThat(started).containsExactly("r1");
    answerBytesLeft += 8; // r1's answer was written
    order.resume();
    assertThat(started).containsExactly("r1", "r2");
    order.finished(false);
    order.finished(false);
    assertThat(started).containsExactly("r1", "r2", "w");
    order.finished(true);
    assertThat(started).containsExactly("r1", "r2", "w", "r3");
  }

  @Test
  void readsRunSideBySide() {
    submit(false, "r1");
    submit(false, "r2");
    submit(false, "r3");
    assertThat(started).containsExactly("r1", "r2", "r3");
  }

  @Test
  void writeWaitsForEarlierReadsAndLaterCallsWaitForTheWrite() {
    submit(false, "r1");
    submit(false, "r2");
    submit(true, "w");
    submit(false, "r3");
    assertThat(started).containsExactly("r1", "r2");
    order.finished(false);
    assertThat(started).containsExactly("r1", "r2");
    order.finished(false);
    assertThat(started).containsExactly("r1", "r2", "w");
    order.finished(true);
    assertThat(started).containsExactly("r1", "r2", "w", "r3");
  }

  @Test
  void writesRunOneAtATime() {
    submit(true, "w1");
    submit(true, "w2");
    assertThat(started).containsExactly("w1");
    order.finished(true);
    assertThat(started).containsExactly("w1", "w2");
  }

  @Test
  void callsThatFinishWhileStartingLetTheNextOnesStart() {
    // Inline storage calls finish inside their start.
    for (int i = 0; i < 5; i++) {
      boolean write = i % 2 == 0;
      String name = "c" + i;
      order.submit(write, () -> {
        started.add(name);
        order.finished(write);
      });
    }
    assertThat(started).containsExactly("c0", "c1", "c2", "c3", "c4");
  }

  private void submit(boolean write, String name) {
    order.submit(write, () -> started.add(name));
  }
}
