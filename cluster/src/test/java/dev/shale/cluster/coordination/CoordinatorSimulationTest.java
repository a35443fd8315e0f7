package dev.shale.cluster.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The quorum logic on a simulated network, over many seeded runs: concurrent reads and writes of a
 * few keys through every node, with random consistencies, while messages are delayed, reordered,
 * lost and refused, engines fail, and nodes stop and resume. Each run checks, as requests end:
 * an acknowledged write is on at least {@code ack} replicas; a read whose quorum meets a write's
 * ({@code R + W > N}) sees it; a request is decided exactly when its tally allows (so never waits
 * for a stopped peer); its shortfall names the replicas that failed; every write is newer than
 * every version its coordinator saw; a read repairs the replicas that answered with an older
 * record, and the record it kept after {@code done} is the newest answered (it reported each late
 * one newer than the rest); every failed peer write, and no other, is handed to the coordinator's
 * missed writes; and {@code done} and {@code allIn} run exactly once each, in that order, on the
 * request's loop.
 */
class CoordinatorSimulationTest {
  private static final int RUNS = 150;
  private static final int OPERATIONS = 300;
  private static final List<String> KEYS = List.of("k0", "k1", "k2", "k3");

  /** A write the client was told succeeded. */
  private record Acknowledged(String key, long version, int ack, int from) {}

  @Test
  void quorumPropertiesHoldOnALossyReorderingNetworkWithStoppedPeers() {
    Random seeds = new Random(TestSeed.forTest("CoordinatorSimulationTest"));
    for (int run = 0; run < RUNS; run++) {
      long seed = seeds.nextLong();
      try {
        new Run(new Random(seed)).play();
      } catch (AssertionError e) {
        throw new AssertionError("run " + run + " (its own seed " + seed + "): " + e.getMessage(), e);
      }
    }
  }

  /** One run: its cluster, its workload, and the facts its checks need. */
  private static final class Run {
    private final Random random;
    private final SimulatedCluster cluster;
    private final SimulatedNetwork.Faults faults;
    private final List<Acknowledged> acknowledged = new ArrayList<>();
    private final List<ObservedRequest> requests = new ArrayList<>();
    private final Map<NodeAddress, Long> highestSeen = new HashMap<>(); // by coordinator: versions its reads got
    private final List<SimulatedCluster.Hint> expectedHints = new ArrayList<>();

    Run(Random random) {
      this.random = random;
      this.faults = SimulatedNetwork.Faults.random(random);
      this.cluster = new SimulatedCluster(3 + random.nextInt(3), random, faults, 2_000);
    }

    void play() {
      long at = 0;
      for (int i = 0; i < OPERATIONS; i++) {
        at += random.nextInt(4);
        int index = i;
        cluster.time.after(at, () -> operation(index));
      }
      cluster.time.runUntilIdle();
      for (NodeAddress node : cluster.nodes) cluster.network.resume(node);
      cluster.time.runUntilIdle();
      for (ObservedRequest request : requests) request.assertEnded();
      assertThat(cluster.hints).as("the missed writes handed over (%s)", faults)
          .containsExactlyInAnyOrderElementsOf(expectedHints);
      for (NodeAddress node : cluster.nodes) {
        long handed = cluster.hints.stream().filter(h -> h.coordinator().equals(node)).count();
        ReplicationStats stats = cluster.stats(node);
        assertThat(stats.hintsStored() + stats.hintsRefused()).as("hints counted by %s", node.id()).isEqualTo(handed);
      }
    }

    private void operation(int index) {
      maybeStopOrResume();
      List<NodeAddress> running = cluster.nodes.stream().filter(n -> !cluster.network.isStopped(n)).toList();
      NodeAddress coordinator = running.get(random.nextInt(running.size()));
      String key = KEYS.get(random.nextInt(KEYS.size()));
      int from = 1 + random.nextInt(cluster.nodes.size());
      Consistency consistency = new Consistency(1 + random.nextInt(from), from);
      boolean write = random.nextBoolean();
      byte[] value = random.nextInt(6) == 0 ? null : ("value " + index).getBytes(StandardCharsets.UTF_8);
      cluster.on(coordinator, 0, () -> {
        long seenBefore = highestSeen.getOrDefault(coordinator, -1L);
        if (write) {
          requests.add(cluster.write(coordinator, key, value, consistency, w -> writeDecided(w, seenBefore), this::writeAllIn));
        } else {
          requests.add(startRead(coordinator, key, consistency));
        }
      });
    }

    /** Now and then one node stops (at most all but one) or a stopped one resumes. */
    private void maybeStopOrResume() {
      if (random.nextInt(40) != 0) return;
      NodeAddress node = cluster.nodes.get(random.nextInt(cluster.nodes.size()));
      long stoppedCount = cluster.nodes.stream().filter(cluster.network::isStopped).count();
      if (cluster.network.isStopped(node)) cluster.network.resume(node);
      else if (stoppedCount < cluster.nodes.size() - 1) cluster.network.stop(node);
    }

    private void writeDecided(ObservedRequest write, long seenBefore) {
      checkDecision(write);
      long version = write.writeVersion();
      assertThat(version).as("%s: its version over every version its coordinator's reads saw before", write.name)
          .isGreaterThan(seenBefore);
      if (write.outcome.shortfall() != null) return;
      String key = write.key;
      long holding = cluster.nodes.stream().filter(n -> cluster.network.replica(n).versionOf(key.getBytes(StandardCharsets.UTF_8)) >= version).count();
      assertThat(holding).as("%s: replicas holding the acknowledged write or newer", write.name)
          .isGreaterThanOrEqualTo(write.consistency.ack());
      acknowledged.add(new Acknowledged(key, version, write.consistency.ack(), write.consistency.from()));
    }

    private void writeAllIn(ObservedRequest write) {
      // Every peer whose write failed gets a hint; this node's own replica never does.
      for (NodeAddress failed : write.failedReplicas()) {
        if (!failed.equals(write.self())) {
          expectedHints.add(new SimulatedCluster.Hint(write.self(), failed, write.key, write.writeVersion()));
        }
      }
    }

    private ObservedRequest startRead(NodeAddress coordinator, String key, Consistency consistency) {
      // The newest write this read must see: acknowledged before it started, with a quorum that meets its own.
      long mustSee = acknowledged.stream()
          .filter(w -> w.key().equals(key)
              && consistency.ack() + w.ack() > Math.max(consistency.from(), w.from()))
          .mapToLong(Acknowledged::version).max().orElse(-1);
      return cluster.read(coordinator, key, consistency, read -> readDecided(read, mustSee), this::readAllIn);
    }

    private void readDecided(ObservedRequest read, long mustSee) {
      checkDecision(read);
      noteSeen(read);
      if (read.outcome.shortfall() != null) return;
      Entry newest = read.outcome.newest();
      assertThat(newest == null ? -1 : newest.version()).as("%s: the version read", read.name).isGreaterThanOrEqualTo(mustSee);
    }

    private void readAllIn(ObservedRequest read) {
      noteSeen(read);
      Entry newest = newestAnswered(read);
      assertThat(read.kept()).as("%s: the record it kept after done (the outcome's, or a newer late one it reported)", read.name)
          .isEqualTo(newest);
      List<ObservedRequest.Call> repairs = read.calls.stream().filter(c -> !c.initial).toList();
      Set<NodeAddress> stale = read.initialReplies.stream()
          .filter(c -> c.reply instanceof ReplicaReply.Read(Entry entry) && newest != null && !newest.equals(entry))
          .map(c -> c.replica).collect(Collectors.toSet());
      assertThat(repairs.stream().map(c -> c.replica).collect(Collectors.toSet()))
          .as("%s: the replicas repaired: those that answered with an older record", read.name).isEqualTo(stale);
      for (ObservedRequest.Call repair : repairs) {
        assertThat(repair.version).as("%s: a repair's version", read.name).isEqualTo(newest.version());
        if (repair.reply instanceof ReplicaReply.Stored) {
          assertThat(cluster.network.replica(repair.replica).versionOf(newest.key()))
              .as("%s: %s after its repair", read.name, repair.replica.id()).isGreaterThanOrEqualTo(newest.version());
        }
      }
    }

    /** A decided request's shortfall says what it asked for and got, and names every replica that failed. */
    private void checkDecision(ObservedRequest request) {
      String shortfall = request.outcome.shortfall();
      if (request.answered() >= request.consistency.ack()) {
        assertThat(shortfall).as("%s: the shortfall of a request that reached ack", request.name).isNull();
        return;
      }
      assertThat(shortfall).as("%s: the shortfall", request.name).startsWith(request.consistency.ack() + " of "
          + request.consistency.from() + " replicas needed, " + request.answered() + " answered: ");
      for (NodeAddress failed : request.failedReplicas()) assertThat(shortfall).contains(failed.id());
    }

    private void noteSeen(ObservedRequest read) {
      Entry newest = newestAnswered(read);
      if (newest != null) highestSeen.merge(read.self(), newest.version(), Math::max);
    }

    private static Entry newestAnswered(ObservedRequest read) {
      Entry newest = null;
      for (ObservedRequest.Call call : read.initialReplies) {
        if (call.reply instanceof ReplicaReply.Read(Entry entry) && entry != null) {
          newest = newest == null ? entry : Entry.newer(newest, entry);
        }
      }
      return newest;
    }
  }
}
