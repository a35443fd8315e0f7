package dev.shale.storage.io;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.TestSeed;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The candidates' heap gives them back lowest end first, as a PriorityQueue does, and holds no more than its bound. */
class PendingFramesTest {
  private record Candidate(long start, long end, int crcAtStart) {}

  @Test
  void framesComeBackInOrderOfTheirEnds() {
    long seed = TestSeed.forTest("PendingFramesTest.order");
    Random random = new Random(seed);
    PendingFrames heap = new PendingFrames(1 << 12);
    PriorityQueue<Candidate> oracle = new PriorityQueue<>(Comparator.comparingLong(Candidate::end));
    for (int step = 0; step < 100_000; step++) {
      String what = "seed " + seed + ", step " + step;
      if (oracle.size() < (1 << 12) && (oracle.isEmpty() || random.nextInt(3) > 0)) {
        Candidate c = new Candidate(random.nextInt(1 << 20), random.nextInt(1 << 16), random.nextInt());
        assertThat(heap.add(c.start(), c.end(), c.crcAtStart())).as(what).isTrue();
        oracle.add(c);
      } else {
        Candidate expected = oracle.poll();
        assertThat(heap.firstEnd()).as(what).isEqualTo(expected.end());
        // Equal ends may come back in any order: compare the whole candidate only when unique.
        if (oracle.stream().noneMatch(c -> c.end() == expected.end())) {
          assertThat(new Candidate(heap.firstStart(), heap.firstEnd(), heap.firstCrcAtStart())).as(what).isEqualTo(expected);
        }
        heap.removeFirst();
      }
      assertThat(heap.isEmpty()).as(what).isEqualTo(oracle.isEmpty());
    }
  }

  @Test
  void addRefusesPastTheBound() {
    PendingFrames heap = new PendingFrames(100);
    for (int i = 0; i < 100; i++) assertThat(heap.add(i, 1_000 - i, i)).isTrue();
    assertThat(heap.add(100, 5, 0)).isFalse();
    assertThat(heap.firstEnd()).isEqualTo(901);
  }
}
