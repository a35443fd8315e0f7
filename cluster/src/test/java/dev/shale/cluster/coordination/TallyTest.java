package dev.shale.cluster.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import org.junit.jupiter.api.Test;

/** The decision of a coordinated request: as soon as ack answered, or ack can no longer answer. */
class TallyTest {
  private static final NodeAddress A = new NodeAddress("127.0.0.1", 8081);
  private static final NodeAddress B = new NodeAddress("127.0.0.1", 8082);

  @Test
  void decidedOnceAckReplicasAnsweredWithoutWaitingForTheRest() {
    Tally tally = new Tally(new Consistency(2, 3));
    tally.answered();
    assertThat(tally.decided()).isFalse();
    tally.answered();
    assertThat(tally.decided()).isTrue();
    assertThat(tally.reached()).isTrue();
    assertThat(tally.allIn()).isFalse();
  }

  @Test
  void decidedAsFailedOnceMoreThanFromMinusAckFailed() {
    Tally tally = new Tally(new Consistency(2, 3));
    tally.failed(A, "cannot connect to http://127.0.0.1:8081: refused");
    assertThat(tally.decided()).as("one failure leaves 2 of 3 possible").isFalse();
    tally.failed(B, "overloaded");
    assertThat(tally.decided()).isTrue();
    assertThat(tally.reached()).isFalse();
    assertThat(tally.shortfall()).isEqualTo(
        "2 of 3 replicas needed, 0 answered: cannot connect to http://127.0.0.1:8081: refused; 127.0.0.1:8082: overloaded");
    tally.answered();
    assertThat(tally.allIn()).isTrue();
  }

  @Test
  void ackEqualToFromIsDecidedByTheFirstFailure() {
    Tally tally = new Tally(new Consistency(3, 3));
    tally.answered();
    tally.failed(A, "timed out");
    assertThat(tally.decided()).isTrue();
    assertThat(tally.reached()).isFalse();
    assertThat(tally.shortfall()).startsWith("3 of 3 replicas needed, 1 answered: 127.0.0.1:8081: timed out");
  }
}
