package dev.shale.server.coordination;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the replication machinery, shown by {@code GET /v0/status}: how often replicas were
 * found to disagree and were repaired, and what became of the writes they missed; and the gauges
 * of the hints still waiting for their replica.
 *
 * <p>Thread safe.
 */
public final class ReplicationStats {
  private final MissedWrites hints;
  /** Writes of the newest record to a stale replica after a read, that the replica stored. */
  final LongAdder readRepairs = new LongAdder();
  /** Writes a replica missed, kept as hints for it. */
  final LongAdder hintsStored = new LongAdder();
  /** Writes a replica missed that the hint store refused (full, or too old): only repair heals those. */
  final LongAdder hintsRefused = new LongAdder();
  /** Hints the replica they were for has stored since this node started. */
  public final LongAdder hintsDelivered = new LongAdder();

  public ReplicationStats(MissedWrites hints) {
    this.hints = hints;
  }

  /** The counters and gauges as the members of a JSON object, without braces. */
  public String jsonMembers() {
    return "\"readRepairs\": " + readRepairs.sum()
        + ", \"hintsStored\": " + hintsStored.sum()
        + ", \"hintsRefused\": " + hintsRefused.sum()
        + ", \"hintsDelivered\": " + hintsDelivered.sum()
        + ", \"hintsPending\": " + hints.pending()
        + ", \"hintsPendingBytes\": " + hints.pendingBytes();
  }
}
