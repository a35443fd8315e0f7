package dev.shale.cluster.coordination;

import dev.shale.cluster.Consistency;
import dev.shale.cluster.NodeAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts the answers of one request's replicas against its {@link Consistency}: it is decided
 * as soon as {@code ack} replicas answered (success) or more than {@code from - ack} failed (then
 * {@code ack} answers can no longer come), whichever is first, without waiting for the rest.
 *
 * <p>Not thread safe: confined to the thread of its request.
 */
final class Tally {
  private final Consistency consistency;
  private final List<String> failures = new ArrayList<>();
  private int answered;

  Tally(Consistency consistency) {
    this.consistency = consistency;
  }

  void answered() {
    answered++;
  }

  void failed(NodeAddress replica, String reason) {
    failures.add(reason.contains(replica.id()) ? reason : replica.id() + ": " + reason);
  }

  /** How many answers decide the request. */
  int ack() {
    return consistency.ack();
  }

  /** {@code ack} replicas answered. */
  boolean reached() {
    return answered >= consistency.ack();
  }

  /** The request's outcome is known: {@link #reached} or out of reach. */
  boolean decided() {
    return reached() || failures.size() > consistency.from() - consistency.ack();
  }

  /** Every replica answered or failed. */
  boolean allIn() {
    return answered + failures.size() == consistency.from();
  }

  /** What was asked and what was got, for a 504: "2 of 3 replicas needed, 1 answered: why not". */
  String shortfall() {
    return consistency.ack() + " of " + consistency.from() + " replicas needed, " + answered + " answered: "
        + String.join("; ", failures);
  }
}
