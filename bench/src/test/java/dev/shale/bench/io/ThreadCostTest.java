package dev.shale.bench.io;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link ThreadCost} reads this thread's own counters: blocking adds voluntary switches, work adds CPU time. */
class ThreadCostTest {
  @Test
  void aThreadThatBlocksCountsVoluntarySwitchesAndOneThatWorksCountsCpu() throws InterruptedException {
    ThreadCost before = ThreadCost.ofCurrentThread();
    assertThat(before.voluntarySwitches()).as("read from /proc/thread-self/status").isNotNegative();
    for (int i = 0; i < 20; i++) Thread.sleep(1); // each sleep blocks the thread: a voluntary switch
    long sum = 0;
    for (long i = 0; i < 50_000_000L; i++) sum += i ^ (sum >>> 3);
    ThreadCost cost = ThreadCost.ofCurrentThread().since(before);
    assertThat(cost.voluntarySwitches()).as("voluntary switches of 20 sleeps").isGreaterThanOrEqualTo(20);
    assertThat(cost.cpuNanos()).as("CPU time of a loop (result %d)", sum).isPositive();
    assertThat(cost.plus(cost).voluntarySwitches()).isEqualTo(2 * cost.voluntarySwitches());
    assertThat(cost.plus(new ThreadCost(-1, 0, 0)).cpuNanos()).as("unknown stays unknown").isEqualTo(-1);
  }
}
