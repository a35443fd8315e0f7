package dev.shale.cluster.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The quorum logic's contracts, each in one scene on a simulated network without random faults
 * (delays of at most 5 ms, a replica timeout of 1 s), where the virtual time of each callback
 * says what was waited for.
 */
class CoordinatorScenarioTest {
  private static final String KEY = "k";
  private static final byte[] KEY_BYTES = KEY.getBytes(StandardCharsets.UTF_8);
  private static final long TIMEOUT_MILLIS = SimulatedNetwork.Faults.NONE.timeoutMillis();

  private final SimulatedCluster cluster = new SimulatedCluster(3, new Random(1), SimulatedNetwork.Faults.NONE, 0);
  private final List<NodeAddress> replicas = cluster.replicasOf(KEY, 3);
  private final NodeAddress coordinator = replicas.getFirst();

  @Test
  void aWriteIsDecidedWithoutWaitingForAStoppedPeerWhichGetsAHintAfterItsTimeout() {
    NodeAddress stopped = replicas.get(2);
    cluster.network.stop(stopped);
    ObservedRequest write = write(new Consistency(2, 3));

    assertThat(write.outcome.shortfall()).isNull();
    assertThat(write.doneAtMillis).as("decided by the two replicas that answer, not the stopped one").isLessThan(TIMEOUT_MILLIS);
    assertThat(write.allInAtMillis).as("all in once the stopped replica timed out").isEqualTo(TIMEOUT_MILLIS);
    assertThat(cluster.hints).containsExactly(new SimulatedCluster.Hint(coordinator, stopped, KEY, write.writeVersion()));
    assertThat(cluster.stats(coordinator).hintsStored()).isEqualTo(1);

    cluster.network.resume(stopped);
    cluster.time.runUntilIdle();
    assertThat(cluster.network.replica(stopped).versionOf(KEY_BYTES)).as("the write it took while stopped").isEqualTo(write.writeVersion());
  }

  @Test
  void theShortfallSaysWhatWasAskedAndGotAndNamesEachReplicaThatFailed() {
    cluster.network.stop(replicas.get(1));
    cluster.network.stop(replicas.get(2));
    ObservedRequest write = write(new Consistency(2, 3));

    assertThat(write.outcome.shortfall()).isEqualTo("2 of 3 replicas needed, 1 answered: "
        + replicas.get(1).id() + ": no answer within " + TIMEOUT_MILLIS + " ms; "
        + replicas.get(2).id() + ": no answer within " + TIMEOUT_MILLIS + " ms");
    assertThat(write.doneAtMillis).isEqualTo(TIMEOUT_MILLIS);
  }

  @Test
  void aFailedWriteOfThisNodesOwnReplicaIsCountedButNotHinted() {
    SimulatedCluster failing = new SimulatedCluster(3, new Random(1), new SimulatedNetwork.Faults(0, 0, 0, 1, 5, TIMEOUT_MILLIS), 0);
    AtomicReference<ObservedRequest> write = new AtomicReference<>();
    failing.on(coordinator, 0, () -> write.set(failing.write(coordinator, KEY, value("v"), new Consistency(3, 3), w -> {}, w -> {})));
    failing.time.runUntilIdle();

    assertThat(write.get().outcome.shortfall())
        .startsWith("3 of 3 replicas needed, ").contains(coordinator.id() + ": the engine refused the call");
    assertThat(failing.hints).isEmpty();
    assertThat(failing.stats(coordinator).hintsStored() + failing.stats(coordinator).hintsRefused()).isZero();
  }

  @Test
  void aHintTheStoragePoolHasNoRoomForIsCountedAsRefused() {
    cluster.network.stop(replicas.get(2));
    cluster.network.backgroundFull(true);
    write(new Consistency(2, 3));

    assertThat(cluster.hints).isEmpty();
    assertThat(cluster.stats(coordinator).hintsRefused()).isEqualTo(1);
  }

  @Test
  void aReadRepairsEveryReplicaThatAnsweredWithAnOlderRecordOrNoneWithTheNewestAndItsVersion() {
    Entry older = new Entry(KEY_BYTES, 5, value("older"));
    Entry newest = new Entry(KEY_BYTES, 9, value("newest"));
    cluster.network.replica(replicas.get(0)).apply(older);
    cluster.network.replica(replicas.get(1)).apply(newest);
    AtomicReference<ObservedRequest> read = new AtomicReference<>();
    cluster.on(coordinator, 0, () -> read.set(cluster.read(coordinator, KEY, new Consistency(3, 3), r -> {}, r -> {})));
    cluster.time.runUntilIdle();

    assertThat(read.get().outcome.newest()).isEqualTo(newest);
    for (NodeAddress replica : replicas) assertThat(cluster.network.replica(replica).get(KEY_BYTES)).isEqualTo(newest);
    assertThat(cluster.stats(coordinator).readRepairs()).isEqualTo(2);
    assertThat(read.get().allInAtMillis).as("all in once the repairs were answered").isGreaterThan(read.get().doneAtMillis);
  }

  @Test
  void aHealthyReadAsksAckReplicasThisNodeFirstAndNoMore() {
    NodeAddress second = replicas.get(1);
    AtomicReference<ObservedRequest> read = new AtomicReference<>();
    cluster.on(second, 0, () -> read.set(cluster.read(second, KEY, new Consistency(2, 3), r -> {}, r -> {})));
    cluster.time.runUntilIdle();

    read.get().assertEnded();
    assertThat(read.get().calls.stream().map(c -> c.replica)).as("this node, then the first other in preference order")
        .containsExactly(second, replicas.get(0));
    assertThat(read.get().outcome.shortfall()).isNull();
  }

  @Test
  void aReadAsksTheNextReplicaAtOnceWhenOneFails() {
    SimulatedCluster failing = new SimulatedCluster(3, new Random(1), new SimulatedNetwork.Faults(0, 0, 0, 1, 5, TIMEOUT_MILLIS), 0);
    failing.readSpeculationMillis = TIMEOUT_MILLIS; // only the failure can make it ask more
    AtomicReference<ObservedRequest> read = new AtomicReference<>();
    failing.on(coordinator, 0, () -> read.set(failing.read(coordinator, KEY, new Consistency(2, 3), r -> {}, r -> {})));
    failing.time.runUntilIdle();

    read.get().assertEnded();
    assertThat(read.get().calls.stream().map(c -> c.replica)).as("its own engine refused: the third replica in its place")
        .containsExactly(replicas.get(0), replicas.get(1), replicas.get(2));
    assertThat(read.get().outcome.shortfall()).isNull();
    assertThat(read.get().doneAtMillis).isLessThan(TIMEOUT_MILLIS);
  }

  @Test
  void aReadStuckOnAStoppedReplicaAsksTheRestAfterTheSpeculationDelayAndDoesNotRepairTheStoppedOne() {
    cluster.network.replica(replicas.get(0)).apply(new Entry(KEY_BYTES, 9, value("newest")));
    cluster.network.stop(replicas.get(1));
    AtomicReference<ObservedRequest> read = new AtomicReference<>();
    cluster.on(coordinator, 0, () -> read.set(cluster.read(coordinator, KEY, new Consistency(2, 3), r -> {}, r -> {})));
    cluster.time.runUntilIdle();

    read.get().assertEnded();
    assertThat(read.get().doneAtMillis).as("decided by the replica asked once the delay passed, not by the timeout")
        .isGreaterThanOrEqualTo(Cluster.DEFAULT_READ_SPECULATION_MILLIS).isLessThan(TIMEOUT_MILLIS);
    assertThat(read.get().outcome.newest()).isEqualTo(new Entry(KEY_BYTES, 9, value("newest")));
    assertThat(read.get().calls.stream().filter(c -> !c.initial).map(c -> c.replica))
        .as("repaired: the replica that answered without the record, not the stopped one").containsExactly(replicas.get(2));
  }

  @Test
  void aDecidedReadKeepsALateAnswerOnlyIfItIsNewerAndRepairsWithIt() {
    Entry oldest = new Entry(KEY_BYTES, 3, value("oldest"));
    Entry older = new Entry(KEY_BYTES, 5, value("older"));
    Entry newest = new Entry(KEY_BYTES, 9, value("newest"));
    cluster.network.replica(replicas.get(0)).apply(older);
    cluster.network.replica(replicas.get(1)).apply(newest);
    cluster.network.replica(replicas.get(2)).apply(oldest);
    cluster.network.stop(replicas.get(1));
    cluster.network.stop(replicas.get(2));
    cluster.readSpeculationMillis = 0; // every replica asked at once, so two answer after the decision
    AtomicReference<ObservedRequest> read = new AtomicReference<>();
    cluster.on(coordinator, 0, () -> read.set(cluster.read(coordinator, KEY, new Consistency(1, 3), r -> {}, r -> {})));
    cluster.time.after(100, () -> cluster.network.resume(replicas.get(2))); // late, and older: dropped
    cluster.time.after(200, () -> cluster.network.resume(replicas.get(1))); // late, and newer: kept
    cluster.time.runUntilIdle();

    ObservedRequest decided = read.get();
    decided.assertEnded();
    assertThat(decided.outcome.newest()).as("decided by the coordinator's own answer").isEqualTo(older);
    assertThat(decided.newerLate).as("the late answers reported").containsExactly(newest);
    assertThat(decided.calls.stream().filter(c -> !c.initial).map(c -> c.replica))
        .containsExactlyInAnyOrder(replicas.get(0), replicas.get(2));
    for (NodeAddress replica : replicas) assertThat(cluster.network.replica(replica).get(KEY_BYTES)).isEqualTo(newest);
  }

  private ObservedRequest write(Consistency consistency) {
    AtomicReference<ObservedRequest> write = new AtomicReference<>();
    cluster.on(coordinator, 0, () -> write.set(cluster.write(coordinator, KEY, value("v"), consistency, w -> {}, w -> {})));
    cluster.time.runUntilIdle();
    write.get().assertEnded();
    return write.get();
  }

  private static byte[] value(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
