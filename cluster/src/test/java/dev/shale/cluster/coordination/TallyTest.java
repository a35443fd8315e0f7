package dev.shale.cluster.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decision of a coordinated request: as soon as ack answered, or ack can no longer answer. */
class TallyTest {
  private static final NodeAddress A = new NodeAddress("127.0.0.1", 8081);
  private static final NodeAddress B = new NodeAddress("127.0.0.1", 8082);
  private static final NodeAddress C = new NodeAddress("127.0.0.1", 8083);
  private static final NodeAddress D = new NodeAddress("127.0.0.1", 8084);

  @Test
  void decidedOnceAckReplicasAnsweredWithoutWaitingForTheRest() {
    Tally tally = new Tally(new Consistency(2, 3), List.of(A, B, C));
    tally.answered(A);
    assertThat(tally.decided()).isFalse();
    tally.answered(B);
    assertThat(tally.decided()).isTrue();
    assertThat(tally.reached()).isTrue();
    assertThat(tally.allIn()).isFalse();
  }

  @Test
  void decidedAsFailedOnceMoreThanFromMinusAckFailed() {
    Tally tally = new Tally(new Consistency(2, 3), List.of(A, B, C));
    tally.failed(A, "cannot connect to http://127.0.0.1:8081: refused");
    assertThat(tally.decided()).as("one failure leaves 2 of 3 possible").isFalse();
    tally.failed(B, "overloaded");
    assertThat(tally.decided()).isTrue();
    assertThat(tally.reached()).isFalse();
    assertThat(tally.shortfall()).isEqualTo(
        "2 of 3 replicas needed, 0 answered: cannot connect to http://127.0.0.1:8081: refused; 127.0.0.1:8082: overloaded");
    tally.answered(C);
    assertThat(tally.allIn()).isTrue();
  }

  @Test
  void ackEqualToFromIsDecidedByTheFirstFailure() {
    Tally tally = new Tally(new Consistency(3, 3), List.of(A, B, C));
    tally.answered(C);
    tally.failed(A, "timed out");
    assertThat(tally.decided()).isTrue();
    assertThat(tally.reached()).isFalse();
    assertThat(tally.shortfall()).startsWith("3 of 3 replicas needed, 1 answered: 127.0.0.1:8081: timed out");
  }

  @Test
  void whileANodeChangeIsPendingAWriteNeedsAckOfEachReplicaSet() {
    // A joins and takes D's place among the key's replicas.
    ReplicaPlacement.Writes writes = new ReplicaPlacement.Writes(List.of(B, C, D), List.of(B, C, A), 0);
    Tally shared = Tally.of(new Consistency(2, 3), writes);
    shared.answered(B);
    shared.answered(D);
    assertThat(shared.reached()).as("2 of before, 1 of after").isFalse();
    shared.answered(C);
    assertThat(shared.reached()).isTrue();
    assertThat(shared.allIn()).isFalse();
    shared.answered(A);
    assertThat(shared.allIn()).isTrue();

    Tally lost = Tally.of(new Consistency(2, 3), writes);
    lost.answered(D);
    lost.failed(B, "timed out");
    assertThat(lost.decided()).as("C and A may still make 2 of after, C and D 2 of before").isFalse();
    lost.failed(A, "refused");
    assertThat(lost.decided()).isTrue();
    assertThat(lost.reached()).isFalse();
    assertThat(lost.shortfall()).isEqualTo("2 of 3 replicas needed before the node change and 2 of 3 after it, 1 and 0 answered: "
        + "127.0.0.1:8082: timed out; 127.0.0.1:8081: refused");
  }
}
