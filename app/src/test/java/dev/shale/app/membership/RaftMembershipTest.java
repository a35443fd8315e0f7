package dev.shale.app.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.Member;
import dev.shale.cluster.membership.MemberState;
import dev.shale.cluster.membership.RaftAddress;
import dev.shale.cluster.membership.TopologyChange;
import dev.shale.cluster.membership.TopologyChangeRefused;
import dev.shale.cluster.membership.TopologyListener;
import dev.shale.testkit.FreePort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One node's Raft member of the cluster map, in this JVM: changes, listener, snapshots, restart. */
class RaftMembershipTest {
  private static final Duration AGREED = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void changesAreAppliedInOrderSnapshottedAndKeptOverARestart() throws Exception {
    NodeAddress self = new NodeAddress("127.0.0.1", FreePort.find());
    int raftPort = FreePort.find();
    List<Member> members = List.of(new Member(self, RaftAddress.of("127.0.0.1", raftPort), MemberState.NORMAL, ""));
    List<Long> heard = new CopyOnWriteArrayList<>();
    TopologyListener listener = (before, after) -> {
      assertThat(after.version()).isGreaterThan(before.version());
      heard.add(after.version());
    };
    ClusterMap last;
    try (RaftMembership membership = RaftMembership.start(dir, self, "127.0.0.1", raftPort,
        new RaftMembership.Start.Bootstrap(members, 1), listener, true)) {
      awaitBootstrapped(membership);
      NodeAddress other = new NodeAddress("127.0.0.1", 1);
      // More changes than a snapshot's interval: the log is snapshotted and purged meanwhile.
      for (int i = 0; i <= RaftSettings.SNAPSHOT_EVERY_ENTRIES; i++) {
        membership.change(new TopologyChange.Progress(self, "step " + i)).get(30, TimeUnit.SECONDS);
      }
      assertThatThrownBy(() -> membership.change(new TopologyChange.MarkNormal(other)).join())
          .isInstanceOf(CompletionException.class).hasCauseInstanceOf(TopologyChangeRefused.class)
          .hasMessageContaining("not a member");
      last = membership.current();
      assertThat(last.member(self)).get().extracting(Member::progress).isEqualTo("step " + RaftSettings.SNAPSHOT_EVERY_ENTRIES);
      assertThat(heard).isSorted().doesNotHaveDuplicates().last().isEqualTo(last.version());
      assertThat(snapshots()).as("snapshots of the map").isNotEmpty();
    }
    assertThat(RaftMembership.storedMap(dir)).contains(last);
    assertThat(RaftMembership.hasStoredGroup(dir)).isTrue();
    try (RaftMembership restarted = RaftMembership.start(dir, self, "127.0.0.1", raftPort, new RaftMembership.Start.Recover(last),
        TopologyListener.NONE, true)) {
      long deadline = System.nanoTime() + AGREED.toNanos();
      while (!restarted.current().equals(last) && System.nanoTime() < deadline) Thread.sleep(20);
      assertThat(restarted.current()).isEqualTo(last);
      ClusterMap next = restarted.change(new TopologyChange.Progress(self, "after restart")).get(30, TimeUnit.SECONDS);
      assertThat(next.version()).isGreaterThan(last.version());
    }
  }

  private static void awaitBootstrapped(RaftMembership membership) throws InterruptedException {
    long deadline = System.nanoTime() + AGREED.toNanos();
    // Until its bootstrap is applied, the node serves with the bootstrap's members at version 0.
    assertThat(membership.current().addresses()).hasSize(1);
    while (membership.current().version() == 0) {
      if (System.nanoTime() > deadline) throw new AssertionError("the bootstrap was not applied within " + AGREED);
      Thread.sleep(20);
    }
  }

  private List<Path> snapshots() throws IOException {
    try (Stream<Path> files = Files.walk(dir.resolve(RaftMembership.RAFT_DIR))) {
      return files.filter(f -> f.getFileName().toString().startsWith("snapshot.")).toList();
    }
  }
}
