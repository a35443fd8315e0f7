package dev.shale.cluster.handoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Nodes;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.Membership;
import dev.shale.cluster.membership.TopologyChange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The map's transitions as the handoff's calls, and its reports as map changes. */
class MapChangesTest {
  private final List<NodeAddress> nodes = Nodes.loopback(4);
  private final NodeAddress a = nodes.get(0);
  private final NodeAddress d = nodes.get(3);

  @Test
  void aJoinStartsOnceDespiteProgressReportsAndCommitsWhenTheMemberIsNormal() {
    FakeMembership members = new FakeMembership(threeNodes());
    Recorder handoff = new Recorder();
    MapChanges changes = new MapChanges();
    changes.attach(a, members, handoff);
    assertThat(handoff.calls).isEmpty();

    members.apply(changes, new TopologyChange.Join(d, "127.0.0.1:19004"));
    members.apply(changes, new TopologyChange.Progress(d, "half way"));
    assertThat(handoff.calls).containsExactly("started 3->4");

    changes.received(a); // a gains nothing in a join: nothing to propose
    assertThat(members.proposed).isEmpty();
    changes.received(d);
    assertThat(members.proposed).containsExactly(new TopologyChange.MarkNormal(d));
    members.apply(changes, new TopologyChange.MarkNormal(d));
    assertThat(handoff.calls).containsExactly("started 3->4", "committed 3->4");
  }

  @Test
  void aLeaveIsRemovedOnceEveryGainingNodeReported() {
    ClusterMap four = threeNodes().apply(new TopologyChange.Join(d, "127.0.0.1:19004"), 5)
        .apply(new TopologyChange.MarkNormal(d), 6);
    FakeMembership members = new FakeMembership(four);
    Recorder handoff = new Recorder();
    MapChanges changes = new MapChanges();
    changes.attach(nodes.get(1), members, handoff);
    members.apply(changes, new TopologyChange.MarkLeaving(a));
    assertThat(handoff.calls).containsExactly("started 4->3");

    for (NodeAddress gainer : nodes.subList(1, 4)) {
      changes.received(gainer);
      members.applyProposed(changes);
    }
    assertThat(members.current().member(a)).isEmpty();
    assertThat(handoff.calls).containsExactly("started 4->3", "committed 4->3");
  }

  @Test
  void aDeadLeaveIsAChangeWithTheMemberDownAndEndsOnceEveryGainingNodeReported() {
    FakeMembership members = new FakeMembership(fourNodes());
    Recorder handoff = new Recorder();
    MapChanges changes = new MapChanges();
    changes.attach(nodes.get(1), members, handoff);
    members.apply(changes, new TopologyChange.MarkDead(a));
    assertThat(handoff.calls).containsExactly("started 4->3 down " + a.id());

    // The dead member never reports; the others do, and the last report removes it.
    for (NodeAddress gainer : nodes.subList(1, 4)) {
      changes.received(gainer);
      members.applyProposed(changes);
    }
    assertThat(members.current().member(a)).isEmpty();
    assertThat(handoff.calls).containsExactly("started 4->3 down " + a.id(), "committed 4->3 down " + a.id());
  }

  @Test
  void aLeavingMemberMarkedDeadGoesOnWithTheSameChangeNotCommittedOnTheWay() {
    FakeMembership members = new FakeMembership(fourNodes());
    Recorder handoff = new Recorder();
    MapChanges changes = new MapChanges();
    changes.attach(nodes.get(1), members, handoff);
    members.apply(changes, new TopologyChange.MarkLeaving(a));
    members.apply(changes, new TopologyChange.MarkDead(a));
    members.apply(changes, new TopologyChange.Progress(nodes.get(2), "half way"));
    // Committing the change would drop copies that reads still count on: it is started again.
    assertThat(handoff.calls).containsExactly("started 4->3", "started 4->3 down " + a.id());
  }

  @Test
  void attachingToAMapInTransitionResumesTheChange() {
    ClusterMap joining = threeNodes().apply(new TopologyChange.Join(d, "127.0.0.1:19004"), 5);
    Recorder handoff = new Recorder();
    new MapChanges().attach(d, new FakeMembership(joining), handoff);
    assertThat(handoff.calls).containsExactly("started 3->4");
  }

  private ClusterMap fourNodes() {
    return threeNodes().apply(new TopologyChange.Join(d, "127.0.0.1:19004"), 5).apply(new TopologyChange.MarkNormal(d), 6);
  }

  private ClusterMap threeNodes() {
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < 3; i++) members.add(Member.joining(nodes.get(i), "127.0.0.1:" + (19001 + i)));
    return ClusterMap.EMPTY.apply(new TopologyChange.Bootstrap(members, 3), 1);
  }

  private static final class Recorder implements ChangeListener {
    final List<String> calls = new ArrayList<>();

    @Override
    public void changeStarted(PlacementChange change) {
      calls.add("started " + sides(change));
    }

    @Override
    public void changeCommitted(PlacementChange change) {
      calls.add("committed " + sides(change));
    }

    private static String sides(PlacementChange change) {
      return change.before().topology().size() + "->" + change.after().topology().size()
          + (change.down().isEmpty() ? "" : " down " + NodeIds.join(change.down()));
    }
  }

  /** A membership that applies what it is told, when the test says. */
  private static final class FakeMembership implements Membership {
    private ClusterMap map;
    private long index = 100;
    final List<TopologyChange> proposed = new ArrayList<>();

    FakeMembership(ClusterMap map) {
      this.map = map;
    }

    synchronized void apply(MapChanges listener, TopologyChange change) {
      ClusterMap before = map;
      map = map.apply(change, ++index);
      listener.onChange(before, map);
    }

    /** Applies the proposals made so far, and those they lead to. */
    void applyProposed(MapChanges listener) {
      while (true) {
        TopologyChange next;
        synchronized (this) {
          if (proposed.isEmpty()) return;
          next = proposed.removeFirst();
        }
        try {
          apply(listener, next);
        } catch (RuntimeException refused) {
          // a no-op, as the real membership refuses it
        }
        pending.removeFirst().complete(map);
      }
    }

    private final List<CompletableFuture<ClusterMap>> pending = new ArrayList<>();

    @Override
    public boolean changes() {
      return true;
    }

    @Override
    public synchronized ClusterMap current() {
      return map;
    }

    @Override
    public synchronized CompletableFuture<ClusterMap> change(TopologyChange change) {
      proposed.add(change);
      CompletableFuture<ClusterMap> result = new CompletableFuture<>();
      pending.add(result);
      return result;
    }

    @Override
    public CompletableFuture<ClusterMap> join(NodeAddress address, String raftAddress) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<ClusterMap> remove(NodeAddress address, boolean dead) {
      throw new UnsupportedOperationException();
    }
  }
}
