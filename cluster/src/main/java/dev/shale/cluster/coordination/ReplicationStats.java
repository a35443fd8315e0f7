package dev.shale.cluster.coordination;

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
  private final LongAdder readRepairs = new LongAdder();
  private final LongAdder hintsStored = new LongAdder();
  private final LongAdder hintsRefused = new LongAdder();
  private final LongAdder hintsDelivered = new LongAdder();
  private final LongAdder hintsDroppedTooFarAhead = new LongAdder();

  public ReplicationStats(MissedWrites hints) {
    this.hints = hints;
  }

  /** Writes of the newest record to a stale replica after a read, that the replica stored. */
  public long readRepairs() {
    return readRepairs.sum();
  }

  /** Writes a replica missed, kept as hints for it. */
  public long hintsStored() {
    return hintsStored.sum();
  }

  /** Writes a replica missed that the hint store refused (full, or too old): only repair heals those. */
  public long hintsRefused() {
    return hintsRefused.sum();
  }

  /** Hints the replica they were for has stored since this node started. */
  public long hintsDelivered() {
    return hintsDelivered.sum();
  }

  /**
   * Writes a replica refused as beyond the version-skew bound of its clock, which no hint was
   * kept of, and hints dropped for that reason (docs/design.md, "Clock offsets").
   */
  public long hintsDroppedTooFarAhead() {
    return hintsDroppedTooFarAhead.sum();
  }

  /** Hints kept and not yet delivered, all replicas together. */
  public long hintsPending() {
    return hints.pending();
  }

  /** The bytes of the {@link #hintsPending} hints. */
  public long hintsPendingBytes() {
    return hints.pendingBytes();
  }

  /** A hint was delivered: its replica stored it. */
  public void hintDelivered() {
    hintsDelivered.increment();
  }

  /** A write or hint was refused as beyond the version-skew bound: it is not kept. */
  public void hintDroppedTooFarAhead() {
    hintsDroppedTooFarAhead.increment();
  }

  void readRepaired() {
    readRepairs.increment();
  }

  void hintStored() {
    hintsStored.increment();
  }

  void hintRefused() {
    hintsRefused.increment();
  }
}
