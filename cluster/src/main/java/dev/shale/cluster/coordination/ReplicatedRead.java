package dev.shale.cluster.coordination;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import dev.shale.storage.HybridClock;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One read over a key's replicas: answers with the newest record once {@code ack} replicas
 * answered, and once every replica is in (late answers included) writes that record, with its
 * original version, to each replica that answered with an older one or none (read repair), in
 * the background. Replicas that failed are not repaired here: hints and later reads cover them.
 * {@code allIn} runs once every replica is in and every repair answered: the values it held are
 * free then.
 *
 * <p>Confined to the request's thread ({@code loop}).
 */
final class ReplicatedRead {
  private static final System.Logger LOG = System.getLogger(ReplicatedRead.class.getName());

  private final Replicas replicas;
  private final Executor loop;
  private final byte[] key;
  private final List<NodeAddress> targets;
  private final Tally tally;
  private final HybridClock clock;
  private final ReplicationStats stats;
  private final Consumer<Coordinator.Outcome> done;
  private final Runnable allIn;
  // What each replica that answered holds; a null value: nothing.
  private final Map<NodeAddress, @Nullable Entry> answers = new HashMap<>();
  private @Nullable Entry newest; // of the answers so far; null while none had a record
  private boolean decided;

  ReplicatedRead(Replicas replicas, Executor loop, byte[] key, List<NodeAddress> targets, Tally tally,
      HybridClock clock, ReplicationStats stats, Consumer<Coordinator.Outcome> done, Runnable allIn) {
    this.replicas = replicas;
    this.loop = loop;
    this.key = key;
    this.targets = targets;
    this.tally = tally;
    this.clock = clock;
    this.stats = stats;
    this.done = done;
    this.allIn = allIn;
  }

  void start() {
    for (NodeAddress replica : targets) replicas.read(loop, replica, key, reply -> onReply(replica, reply));
  }

  private void onReply(NodeAddress replica, ReplicaReply reply) {
    switch (reply) {
      case ReplicaReply.Read(Entry entry) -> {
        answers.put(replica, entry);
        if (entry != null) {
          clock.observe(entry.version());
          newest = newest == null ? entry : Entry.newer(newest, entry);
        }
        tally.answered();
      }
      case ReplicaReply.Failed(String reason) -> tally.failed(replica, reason);
      case ReplicaReply.Stored ignored -> throw new IllegalStateException("a read answered as a write by " + replica);
    }
    if (!decided && tally.decided()) {
      decided = true;
      done.accept(new Coordinator.Outcome(tally.reached() ? null : tally.shortfall(), newest));
    }
    if (tally.allIn()) repairStale();
  }

  private void repairStale() {
    Entry winner = newest;
    if (winner == null) { // nobody has a record: nothing to disagree about
      allIn.run();
      return;
    }
    List<NodeAddress> stale =
        answers.entrySet().stream().filter(e -> !winner.equals(e.getValue())).map(Map.Entry::getKey).toList();
    int[] unanswered = {stale.size()};
    if (stale.isEmpty()) allIn.run();
    for (NodeAddress replica : stale) {
      replicas.write(loop, replica, key, winner.value(), winner.version(), reply -> {
        if (reply instanceof ReplicaReply.Stored) {
          stats.readRepaired();
        } else if (reply instanceof ReplicaReply.Failed(String reason)) {
          LOG.log(Level.DEBUG, () -> "read repair of " + replica.id() + " failed: " + reason);
        }
        if (--unanswered[0] == 0) allIn.run();
      });
    }
  }
}
