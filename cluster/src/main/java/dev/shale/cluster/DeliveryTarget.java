package dev.shale.cluster;

import java.util.ArrayDeque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The delivery state of one target replica: where its pass through its hints stands, what is in
 * flight, and its back-off.
 *
 * <p>A <em>pass</em> reads the target's hints in key order, a batch at a time, from the first
 * pending hint to the last. A new pass starts only once the last one ended and nothing of it is in
 * flight: a hint is then either removed (delivered) or still pending, so no hint is sent twice
 * at once. A failed delivery ends the pass at once and backs the target off; the next pass, after
 * the back-off, starts again from the first pending hint, with one hint in flight (a probe) until
 * a delivery succeeds.
 *
 * <p>Thread safety: only the delivery thread touches it, except {@link #signalUp}.
 */
final class DeliveryTarget {
  final NodeAddress address;
  private final ArrayDeque<Hint> batch = new ArrayDeque<>();
  private byte @Nullable [] cursor; // the key of the last hint read into a batch; null: the pass starts over
  private boolean passEnded = true; // no pass yet: the first starts when the target has hints
  private long nextPassNanos;
  private int inFlight;
  private int generation; // bumped by each back-off step, so one burst of failures steps once
  private long backoffMillis; // 0: healthy
  private long backoffUntilNanos;
  private volatile boolean backingOff;
  private volatile boolean upSignal;

  DeliveryTarget(NodeAddress address, long nowNanos) {
    this.address = address;
    this.nextPassNanos = nowNanos;
    this.backoffUntilNanos = nowNanos;
  }

  /** Ends the back-off now if {@link #signalUp} asked for it since the last look. */
  void applyUpSignal(long nowNanos) {
    if (upSignal) {
      upSignal = false;
      backoffUntilNanos = nowNanos;
      nextPassNanos = nowNanos;
    }
  }

  /** Whether a hint may be sent to this target now, by its back-off and in-flight limit. */
  boolean maySend(long nowNanos, int maxInFlight) {
    int limit = backoffMillis > 0 ? 1 : maxInFlight; // a backed-off target gets one probe at a time
    return nowNanos - backoffUntilNanos >= 0 && inFlight < limit;
  }

  /** When this target may next have something to send, by its back-off and its next pass. */
  long readyAtNanos() {
    return passEnded ? Math.max(nextPassNanos, backoffUntilNanos) : backoffUntilNanos;
  }

  boolean needsBatch() {
    return batch.isEmpty() && !passEnded;
  }

  /** Whether a new pass may start: the last ended, nothing of it in flight, and it is time. */
  boolean mayStartPass(long nowNanos) {
    return passEnded && inFlight == 0 && nowNanos - nextPassNanos >= 0;
  }

  void startPass() {
    passEnded = false;
    cursor = null;
  }

  byte @Nullable [] cursor() {
    return cursor;
  }

  /**
   * Takes the next batch of the pass; an empty one ends the pass. A pass that found nothing from
   * its start waits {@code idleNanos} before the next (the tally promised hints that a read did
   * not find: they were being replaced, or removed, meanwhile).
   */
  void takeBatch(List<Hint> hints, long nowNanos, long idleNanos) {
    if (hints.isEmpty()) {
      if (cursor == null) nextPassNanos = nowNanos + idleNanos;
      passEnded = true;
      return;
    }
    batch.addAll(hints);
    cursor = hints.getLast().key();
  }

  boolean hasBatched() {
    return !batch.isEmpty();
  }

  Hint poll() {
    return batch.poll();
  }

  int generation() {
    return generation;
  }

  void sent() {
    inFlight++;
  }

  void done() {
    inFlight--;
  }

  /** A delivery succeeded: the target takes hints; ends any back-off. Returns whether there was one. */
  boolean succeeded() {
    boolean wasBackingOff = backoffMillis > 0;
    backoffMillis = 0;
    backingOff = false;
    return wasBackingOff;
  }

  /**
   * A delivery sent in {@code sentGeneration} failed: ends the pass and, once per generation,
   * doubles the back-off (starting at {@code initialMillis}, at most {@code maxMillis}). Returns
   * the back-off now in force.
   */
  long failed(int sentGeneration, long nowNanos, long initialMillis, long maxMillis) {
    // The pass ends here; the next starts from the first pending hint once this one's deliveries
    // in flight are done (so none of them is read and sent again) and the back-off is over.
    batch.clear();
    passEnded = true;
    if (sentGeneration == generation) {
      generation++;
      backoffMillis = backoffMillis == 0 ? initialMillis : Math.min(maxMillis, backoffMillis * 2);
      backoffUntilNanos = nowNanos + backoffMillis * 1_000_000L;
      nextPassNanos = backoffUntilNanos;
      backingOff = true;
    }
    return backoffMillis;
  }

  /** The replica answered someone: end the back-off at the next look (any thread). */
  void signalUp() {
    if (backingOff) upSignal = true;
  }

  boolean isBackingOff() {
    return backingOff;
  }
}
