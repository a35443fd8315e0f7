package dev.shale.server.peer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import dev.shale.cluster.membership.TopologyChange;
import dev.shale.storage.Env;
import dev.shale.storage.ManualClockEnv;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MapFenceTest {
  private static final NodeAddress A = new NodeAddress("127.0.0.1", 9001);
  private static final NodeAddress B = new NodeAddress("127.0.0.1", 9002);
  private static final NodeAddress D = new NodeAddress("127.0.0.1", 9004);

  // A map whose placement dates from version 5.
  private final AtomicReference<ClusterMap> map = new AtomicReference<>(new ClusterMap(5, List.of(member(A), member(B)), 2));
  private final MapFence fence = new MapFence(map::get, Env.real());

  @Test
  void requestsAddressedWithAMapOlderThanThePlacementAreRefused() {
    assertThat(fence.refusal(5)).isNull();
    assertThat(fence.refusal(9)).as("a coordinator ahead of this node").isNull();
    assertThat(fence.refusal(4)).isEqualTo(
        "the coordinator's cluster map (version 4) is older than this node's placement (since version 5): retry once it has caught up");
    assertThat(fence.enter(4)).isNull();
    MapFence.Epoch admitted = fence.enter(5);
    assertThat(admitted).isNotNull();
    admitted.leave();

    map.set(map.get().apply(new TopologyChange.Progress(A, "a report"), 6));
    assertThat(fence.refusal(5)).as("a report changes no placement").isNull();
    map.set(map.get().apply(new TopologyChange.Join(D, "127.0.0.1:19004"), 7));
    assertThat(fence.refusal(6)).isNotNull();
    assertThat(fence.enter(6)).isNull();
  }

  @Test
  void aScanOfTheChangeWaitsForItToBeAppliedAndForTheWritesAdmittedBeforeIt() {
    MapFence.Epoch before = fence.enter(5);
    assertThat(before).isNotNull();
    assertThat(fence.awaitApplied(7, 20)).as("the change is not applied here yet").isFalse();

    map.set(map.get().apply(new TopologyChange.Join(D, "127.0.0.1:19004"), 7));
    assertThat(fence.awaitApplied(7, 20)).as("a write admitted before the change is still out").isFalse();
    MapFence.Epoch after = fence.enter(7);
    assertThat(after).isNotNull();
    before.leave();
    assertThat(fence.awaitApplied(7, 20)).as("writes admitted after the change do not hold the scan").isTrue();
    after.leave();
    assertThat(fence.awaitApplied(7, 0)).isTrue();
  }

  @Test
  void aScansWaitForAChangeRunsOutOnTheNodesClock() throws Exception {
    ManualClockEnv env = new ManualClockEnv(0);
    MapFence onManualClock = new MapFence(map::get, env);
    // A minute on the node's clock; the map never reaches version 7. On a thread of its own (not
    // the common pool, which other tests' closes run on), ended below however the test goes.
    CompletableFuture<Boolean> applied = new CompletableFuture<>();
    Thread waiter = new Thread(() -> applied.complete(onManualClock.awaitApplied(7, 60_000)), "map-fence-waiter");
    waiter.start();
    try {
      long advancedMillis = 0;
      long realDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!applied.isDone() && System.nanoTime() - realDeadline < 0) {
        env.advanceMillis(1_000);
        advancedMillis += 1_000;
        try {
          applied.get(10, TimeUnit.MILLISECONDS);
        } catch (TimeoutException stillWaiting) {
          // the next second of the node's clock
        }
      }

      assertThat(applied.getNow(null)).as("gave up once the node's clock passed the deadline").isFalse();
      assertThat(advancedMillis).as("not before a minute of the node's clock").isGreaterThanOrEqualTo(60_000);
    } finally {
      env.advanceMillis(TimeUnit.HOURS.toMillis(1)); // past any deadline: the waiter ends
      waiter.join(TimeUnit.SECONDS.toMillis(30));
    }
  }

  @Test
  void aFixedClusterAdmitsEverything() {
    MapFence open = new MapFence(() -> ClusterMap.EMPTY, Env.real()); // version 0, as every request on it
    assertThat(open.refusal(0)).isNull();
    assertThat(open.enter(0)).isNotNull();
    assertThat(open.awaitApplied(0, 0)).isTrue();
  }

  private static Member member(NodeAddress address) {
    return new Member(address, "127.0.0.1:1" + address.port(), MemberState.NORMAL, "");
  }
}
