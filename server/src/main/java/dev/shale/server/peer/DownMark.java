package dev.shale.server.peer;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Whether a peer is taken as down, after a connection to it could not be made (refused,
 * unreachable, the handshake refused): for a brief back-off, 50 ms doubling to at most 1 s
 * while attempts keep failing, new connection attempts wait and requests to the peer fail at
 * once (to a host that does not answer, an attempt would cost the connect timeout). Any sign of
 * the peer (its own connection to this node authenticated, any frame from it, a connection made)
 * ends the mark at once: a restarted peer is used as soon as it is back, not a second later.
 *
 * <p>Thread safe: the links of every event loop share it.
 */
final class DownMark {
  static final long FIRST_BACKOFF_MILLIS = 50;
  static final long MAX_BACKOFF_MILLIS = 1_000;

  // nanoTime until which the peer is down, and the back-off that set it; 0 when up.
  private long downUntilNanos; // guarded by this
  // Written under this; volatile so that cleared(), called for every frame a peer sends, can see
  // without the lock (which the links of every event loop share) that there is nothing to clear.
  private volatile long backoffMillis;
  private final LongSupplier nanoTime; // the node's Env's monotonic clock

  DownMark(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** An attempt failed: down for the next back-off, twice the last (from 50 ms, at most 1 s). */
  synchronized void failed() {
    backoffMillis = backoffMillis == 0 ? FIRST_BACKOFF_MILLIS : Math.min(MAX_BACKOFF_MILLIS, backoffMillis * 2);
    downUntilNanos = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(backoffMillis);
  }

  /**
   * The peer showed it is up. A failure that races with this may stand or be cleared, as if it
   * came after or before: either is an order the two could have had.
   */
  void cleared() {
    if (backoffMillis == 0) return; // the common case: up, and every answer says so again
    synchronized (this) {
      downUntilNanos = 0;
      backoffMillis = 0;
    }
  }

  /** Milliseconds left of the back-off (at least 1 while down), or 0 if attempts may be made. */
  synchronized long remainingMillis() {
    if (backoffMillis == 0) return 0;
    long left = downUntilNanos - nanoTime.getAsLong();
    return left <= 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
  }

  synchronized long backoffMillis() {
    return backoffMillis;
  }
}
