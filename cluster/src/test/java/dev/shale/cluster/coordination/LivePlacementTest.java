package dev.shale.cluster.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.storage.HybridClock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** A coordinator whose placement changes between requests (the live cluster map). */
class LivePlacementTest {
  private static final NodeAddress SELF = new NodeAddress("127.0.0.1", 9001);
  private static final NodeAddress OTHER = new NodeAddress("127.0.0.1", 9002);
  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
  private static final Executor INLINE = Runnable::run;

  private final List<NodeAddress> contacted = new ArrayList<>();
  private final AtomicReference<List<NodeAddress>> members = new AtomicReference<>(List.of(SELF, OTHER));
  private final Coordinator coordinator = new Coordinator(
      (key, from) -> members.get().subList(0, Math.min(from, members.get().size())), new Recording(), new HybridClock(() -> 1_000),
      MissedWrites.NONE, new ReplicationStats(MissedWrites.NONE), 0);

  @Test
  void eachRequestAsksThePlacementAsItIsNow() {
    assertThat(coordinator.isLocalOnly(KEY, new Consistency(1, 1))).isTrue();
    members.set(List.of(OTHER, SELF));
    assertThat(coordinator.isLocalOnly(KEY, new Consistency(1, 1))).isFalse();

    AtomicReference<Coordinator.@Nullable Outcome> outcome = new AtomicReference<>();
    coordinator.write(INLINE, KEY, new byte[] {1}, new Consistency(2, 2), outcome::set, () -> {});
    assertThat(contacted).containsExactly(OTHER, SELF);
    assertThat(outcome.get()).isNotNull().extracting(Coordinator.Outcome::shortfall).isNull();
  }

  @Test
  void aRequestForMoreReplicasThanTheClusterHasNowIsNotSent() {
    members.set(List.of(SELF));
    AtomicReference<Coordinator.@Nullable Outcome> outcome = new AtomicReference<>();
    boolean[] allIn = {false};
    coordinator.read(INLINE, KEY, new Consistency(2, 2), outcome::set, newer -> {}, () -> allIn[0] = true);
    assertThat(outcome.get()).isNotNull();
    assertThat(outcome.get().shortfall()).isEqualTo("2 of 2 replicas needed, but the cluster has 1 nodes to read from now: ["
        + SELF + "]");
    assertThat(allIn[0]).isTrue();
    assertThat(contacted).isEmpty();
  }

  /** Replicas that store everything at once and remember whom they were sent to. */
  private final class Recording implements Replicas {
    @Override
    public NodeAddress self() {
      return SELF;
    }

    @Override
    public void read(Executor loop, NodeAddress replica, byte[] key, long mapVersion, Consumer<ReplicaReply> done) {
      contacted.add(replica);
      throw new AssertionError("no read is sent in these tests");
    }

    @Override
    public void write(Executor loop, NodeAddress replica, byte[] key, byte @Nullable [] value, long version, long expiresAtMillis, long mapVersion,
        Consumer<ReplicaReply> done) {
      contacted.add(replica);
      done.accept(ReplicaReply.Stored.INSTANCE);
    }

    @Override
    public void schedule(Executor loop, long delayMillis, Runnable task) {
      throw new AssertionError("nothing is scheduled in these tests");
    }

    @Override
    public boolean background(Runnable diskTask) {
      diskTask.run();
      return true;
    }
  }
}
