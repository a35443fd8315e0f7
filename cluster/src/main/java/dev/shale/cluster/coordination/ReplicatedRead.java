package dev.shale.cluster.coordination;

import dev.shale.cluster.NodeAddress;
import dev.shale.storage.Entry;
import dev.shale.storage.HybridClock;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One read over a key's replicas: answers with the newest record once {@code ack} replicas
 * answered, and once every replica it asked is in (late answers included) writes that record,
 * with its original version, to each replica that answered with an older one or none (read
 * repair), in the background. Replicas that failed or were not asked are not repaired here:
 * hints, later reads and anti-entropy cover them. {@code allIn} runs once every replica asked is
 * in and every repair answered: the value it kept is free then.
 *
 * <p>Which replicas it asks (as Cassandra does): {@code ack} of them at first, in the order of
 * {@code targets} (this node first when it is one: its own read crosses no network); the next one
 * when one fails; and every one not yet asked when the read is still undecided {@code
 * speculateAfterMillis} after it started (a slow or stopped replica costs that delay, not the
 * replica timeout). So a healthy read costs {@code ack} replica reads, not {@code from}. With
 * {@code speculateAfterMillis} 0 it asks them all at once.
 *
 * <p>Confined to the request's thread ({@code loop}).
 */
final class ReplicatedRead {
  /*
   * Memory: the read keeps one value, the newest record's, and of every other answer only whether
   * it was that record. An answer not newer is let go as soon as it is compared, so replicas still
   * out after the decision (a stopped one may be out for the whole replica timeout) cost the read
   * nothing until one answers with a newer record, which then takes the kept one's place. Repair
   * needs no more: the replicas to repair are those that answered and do not hold the newest.
   */
  private static final System.Logger LOG = System.getLogger(ReplicatedRead.class.getName());

  private final Replicas replicas;
  private final Executor loop;
  private final byte[] key;
  private final List<NodeAddress> targets;
  private final long mapVersion; // of the map that named targets: every call to them carries it
  private final Tally tally;
  private final HybridClock clock;
  private final ReplicationStats stats;
  private final Consumer<Coordinator.Outcome> done;
  private final Consumer<Entry> newerLate;
  private final Runnable allIn;
  private final long speculateAfterMillis;
  private int asked; // targets[0, asked) were asked
  private int outstanding; // asked, neither answered nor failed yet
  private boolean repairing; // every answer is in: repairStale ran
  private final List<NodeAddress> answered = new ArrayList<>(); // the replicas that answered, in order
  // Invariant: the replicas of `answered` whose record equals `newest` (none while it is null).
  private final List<NodeAddress> holdingNewest = new ArrayList<>();
  private @Nullable Entry newest; // of the answers so far; null while none had a record
  private boolean decided;

  ReplicatedRead(Replicas replicas, Executor loop, byte[] key, List<NodeAddress> targets, long mapVersion, Tally tally,
      HybridClock clock, ReplicationStats stats, long speculateAfterMillis, Consumer<Coordinator.Outcome> done,
      Consumer<Entry> newerLate, Runnable allIn) {
    this.replicas = replicas;
    this.loop = loop;
    this.key = key;
    this.targets = targets;
    this.mapVersion = mapVersion;
    this.tally = tally;
    this.clock = clock;
    this.stats = stats;
    this.done = done;
    this.newerLate = newerLate;
    this.allIn = allIn;
    this.speculateAfterMillis = speculateAfterMillis;
  }

  void start() {
    if (speculateAfterMillis == 0) {
      ask(targets.size());
      return;
    }
    ask(Math.min(tally.ack(), targets.size()));
    if (!decided && asked < targets.size()) replicas.schedule(loop, speculateAfterMillis, this::speculate);
  }

  /** Still undecided after the delay: the replicas asked are slow or stopped, so ask the rest too. */
  private void speculate() {
    if (!decided) ask(targets.size() - asked);
  }

  private void ask(int more) {
    // Counted before any is sent: a call may answer before it returns (this node's own read, a
    // call refused at once), and that answer must see the whole batch as asked and outstanding.
    List<NodeAddress> batch = targets.subList(asked, asked + more);
    asked += more;
    outstanding += more;
    for (NodeAddress replica : batch) replicas.read(loop, replica, key, mapVersion, reply -> onReply(replica, reply));
  }

  private void onReply(NodeAddress replica, ReplicaReply reply) {
    outstanding--;
    switch (reply) {
      case ReplicaReply.Read(Entry entry) -> {
        answered.add(replica);
        if (entry != null) compare(replica, entry);
        tally.answered(replica);
      }
      case ReplicaReply.Failed(String reason) -> {
        tally.failed(replica, reason);
        if (!decided && !tally.decided() && asked < targets.size()) ask(1); // in its place
      }
      case ReplicaReply.Stored ignored -> throw new IllegalStateException("a read answered as a write by " + replica);
      case ReplicaReply.TooFarAhead ignored -> throw new IllegalStateException("a read answered as a write by " + replica);
    }
    if (!decided && tally.decided()) {
      decided = true;
      done.accept(new Coordinator.Outcome(tally.reached() ? null : tally.shortfall(), newest));
    }
    // Decided, nothing asked is out, and (as the decision stops more asking) nothing more will be.
    if (decided && outstanding == 0 && !repairing) {
      repairing = true;
      repairStale();
    }
  }

  /** Keeps {@code entry} if it is the newest so far, else only notes whether {@code replica} holds the newest. */
  private void compare(NodeAddress replica, Entry entry) {
    clock.observe(entry.version());
    Entry kept = newest;
    if (kept != null && Entry.newer(kept, entry) == kept) { // not newer: its value is not needed
      if (kept.equals(entry)) holdingNewest.add(replica);
      return;
    }
    newest = entry;
    holdingNewest.clear();
    holdingNewest.add(replica);
    if (decided) newerLate.accept(entry);
  }

  private void repairStale() {
    Entry winner = newest;
    if (winner == null) { // nobody has a record: nothing to disagree about
      allIn.run();
      return;
    }
    List<NodeAddress> stale = answered.stream().filter(r -> !holdingNewest.contains(r)).toList();
    int[] unanswered = {stale.size()};
    if (stale.isEmpty()) allIn.run();
    for (NodeAddress replica : stale) {
      replicas.write(loop, replica, key, winner.value(), winner.version(), winner.expiresAtMillis(), mapVersion, reply -> {
        if (reply instanceof ReplicaReply.Stored) {
          stats.readRepaired();
        } else {
          LOG.log(Level.DEBUG, () -> "read repair of " + replica.id() + " failed: " + reply);
        }
        if (--unanswered[0] == 0) allIn.run();
      });
    }
  }
}
