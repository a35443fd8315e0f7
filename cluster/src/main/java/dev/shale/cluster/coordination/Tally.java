package dev.shale.cluster.coordination;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts the answers of one request's replicas against its {@link Consistency}: it is decided
 * as soon as it {@link #reached} its answers (success) or they can no longer come (more than
 * {@code from - ack} of a replica set failed), whichever is first, without waiting for the rest.
 *
 * <p>A read, or a write while no node change is pending, has one replica set: {@code ack} of its
 * {@code from} must answer. A write while a change is pending has two, the key's replicas before
 * the change and after it ({@link ReplicaPlacement.Writes}): {@code ack} of each must answer, so
 * the write is on a quorum of whichever set reads follow, now and once the change is committed.
 * The sets share all but the replaced node and its successor, so the shared replicas alone can
 * acknowledge it: a joining node, cold and busy taking its copies, is not waited for unless a
 * shared replica fails (Cassandra's rule, an answer more per pending replica among all targets,
 * would wait for it or for the replaced node).
 *
 * <p>Not thread safe: confined to the thread of its request.
 */
final class Tally {
  private final Consistency consistency;
  private final List<NodeAddress> before; // the replicas reads follow now
  private final List<NodeAddress> after; // the replicas after a pending change; `before` itself without one
  private final int ackAfter; // ack, or all of `after` when it is smaller (a leave below `from`)
  private final int targets; // the replicas of both sets, each once
  private final List<String> failures = new ArrayList<>();
  private int answered;
  private int answeredBefore;
  private int answeredAfter;
  private int failedBefore;
  private int failedAfter;

  /** The tally of a request to one replica set. */
  Tally(Consistency consistency, List<NodeAddress> replicas) {
    this(consistency, replicas, replicas, replicas.size());
  }

  /** The tally of a write to {@code writes}' targets, with {@code ack} of each replica set. */
  static Tally of(Consistency consistency, ReplicaPlacement.Writes writes) {
    return new Tally(consistency, writes.before(), writes.after(), writes.nodes().size());
  }

  private Tally(Consistency consistency, List<NodeAddress> before, List<NodeAddress> after, int targets) {
    this.consistency = consistency;
    this.before = before;
    this.after = after;
    this.ackAfter = Math.min(consistency.ack(), after.size());
    this.targets = targets;
  }

  void answered(NodeAddress replica) {
    answered++;
    if (before.contains(replica)) answeredBefore++;
    if (after.contains(replica)) answeredAfter++;
  }

  void failed(NodeAddress replica, String reason) {
    failures.add(reason.contains(replica.id()) ? reason : replica.id() + ": " + reason);
    if (before.contains(replica)) failedBefore++;
    if (after.contains(replica)) failedAfter++;
  }

  /** How many answers of one replica set decide the request. */
  int ack() {
    return consistency.ack();
  }

  /** {@code ack} replicas of each set answered. */
  boolean reached() {
    return answeredBefore >= consistency.ack() && answeredAfter >= ackAfter;
  }

  /** The request's outcome is known: {@link #reached} or out of reach. */
  boolean decided() {
    return reached() || failedBefore > before.size() - consistency.ack() || failedAfter > after.size() - ackAfter;
  }

  /** Every replica answered or failed. */
  boolean allIn() {
    return answered + failures.size() == targets;
  }

  /**
   * What was asked and what was got, for a 504: "2 of 3 replicas needed, 1 answered: why not"; while a
   * node change is pending "2 of 3 replicas needed before the node change and 2 of 3 after it, 1 and
   * 2 answered: why not".
   */
  String shortfall() {
    String reasons = String.join("; ", failures);
    if (before == after) {
      return consistency.ack() + " of " + consistency.from() + " replicas needed, " + answered + " answered: " + reasons;
    }
    return consistency.ack() + " of " + before.size() + " replicas needed before the node change and " + ackAfter + " of "
        + after.size() + " after it, " + answeredBefore + " and " + answeredAfter + " answered: " + reasons;
  }
}
