package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The fence of {@link ClockOffsets}, with this node's wall and monotonic clocks injected: who is
 * fenced by which offsets, and how a step or drift of this node's own clock counts before the
 * next measurement.
 */
class ClockOffsetsTest {
  private static final long BOUND = ClockOffsets.MAX_OFFSET_MILLIS;
  private static final NodeAddress SELF = new NodeAddress("127.0.0.1", 1001);
  private static final NodeAddress B = new NodeAddress("127.0.0.1", 1002);
  private static final NodeAddress C = new NodeAddress("127.0.0.1", 1003);

  private final AtomicLong wall = new AtomicLong(1_800_000_000_000L); // this node's wall clock, ms
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L); // its monotonic clock
  private final List<NodeAddress> members = new ArrayList<>(List.of(SELF, B, C));
  private final ClockOffsets offsets = new ClockOffsets(SELF.id(), () -> members, wall::get, nanos::get, BOUND);

  @Test
  void membersTwiceTheBoundAheadOrBehindFenceThisNode() {
    offsets.markStarted();
    measure(B, 2 * BOUND, 2);
    measure(C, 2 * BOUND + 10, 2);
    assertThat(offsets.fence()).startsWith("this node's clock is 60010 ms behind 2 of 3 members (more than 30000 ms apart)");
    measure(B, -2 * BOUND, 2);
    measure(C, -2 * BOUND, 2);
    assertThat(offsets.fence()).startsWith("this node's clock is 60000 ms ahead of 2 of 3 members");
    assertThat(offsets.offsetsMillis()).containsEntry(B.id(), -2 * BOUND);
  }

  @Test
  void oneMemberOffOfThreeDoesNotFenceTheOthersButTwoThatDisagreeFenceEachOther() {
    offsets.markStarted();
    measure(B, 0, 2);
    measure(C, 4 * BOUND, 2);
    assertThat(offsets.fence()).as("this node and B agree: a majority").isNull();
    members.remove(B);
    assertThat(offsets.fence()).as("two nodes apart: neither can tell whose clock is right").contains("120000 ms behind 1 of 2 members");
  }

  @Test
  void beforeItsStartIsMeasuredANodeIsFencedUnlessItIsAlone() {
    assertThat(offsets.fence()).contains("measuring its clock");
    members.removeAll(List.of(B, C));
    assertThat(offsets.fence()).as("nobody to measure against").isNull();
  }

  @Test
  void aMemberNeverMeasuredCountsAsWithin() {
    offsets.markStarted();
    measure(B, 3 * BOUND, 2);
    assertThat(offsets.fence()).as("C has been down since this node started").isNull();
    measure(C, 3 * BOUND, 2);
    assertThat(offsets.fence()).isNotNull();
  }

  @Test
  void aStepOfThisNodesOwnClockCountsAtOnceAndStepsBack() {
    offsets.markStarted();
    measure(B, 0, 2);
    measure(C, 0, 2);
    assertThat(offsets.fence()).isNull();
    wall.addAndGet(-2 * BOUND); // a step backwards; the monotonic clock goes on
    tick(100);
    assertThat(offsets.fence()).as("no new measurement needed").contains("ms behind 2 of 3 members");
    assertThat(offsets.offsetsMillis()).containsEntry(B.id(), 2 * BOUND);
    wall.addAndGet(2 * BOUND);
    tick(100);
    assertThat(offsets.fence()).isNull();
  }

  @Test
  void aSlowDriftOfThisNodesClockCrossesTheBoundWhereItIs() {
    offsets.markStarted();
    measure(B, 0, 2);
    measure(C, 0, 2);
    // The wall clock gains 1 ms on every 100 ms of the monotonic clock: 30 s after 3,000 s.
    long gainedMillis = 0;
    while (gainedMillis < BOUND + 1_000) {
      tick(100_000);
      wall.addAndGet(1_000);
      gainedMillis += 1_000;
      boolean clearlyWithin = gainedMillis + 2 < BOUND; // the measurement's uncertainty is 2 ms here
      if (clearlyWithin) assertThat(offsets.fence()).as("gained %d ms", gainedMillis).isNull();
      else if (gainedMillis > BOUND) assertThat(offsets.fence()).as("gained %d ms", gainedMillis).contains("ms ahead of 2 of 3 members");
    }
  }

  @Test
  void aSlowRoundTripWidensTheUncertaintyAgainstTheMember() {
    offsets.markStarted();
    measure(B, BOUND - 100, 2);
    measure(C, BOUND - 100, 2);
    assertThat(offsets.fence()).isNull();
    measure(B, BOUND - 100, 1_000); // the member's reading lies anywhere in a second's round trip
    measure(C, BOUND - 100, 1_000);
    assertThat(offsets.fence()).isNotNull();
  }

  /** A round trip of {@code roundTripMillis} to {@code member}, whose clock reads {@code offsetMillis} off this node's. */
  private void measure(NodeAddress member, long offsetMillis, long roundTripMillis) {
    long askedWall = wall.get();
    long askedNanos = nanos.get();
    tick(roundTripMillis);
    offsets.measured(member.id(), askedWall, askedNanos, askedWall + roundTripMillis / 2 + offsetMillis, nanos.get());
  }

  /** {@code millis} pass, on both of this node's clocks alike. */
  private void tick(long millis) {
    nanos.addAndGet(millis * 1_000_000);
    wall.addAndGet(millis);
  }
}
