package dev.shale.cluster;

import java.util.Arrays;
import java.util.Optional;

/**
 * The sequence numbers of one sender's signed requests lately accepted, to accept each at most
 * once: the anti-replay window of IPsec (RFC 4303, section 3.4.3). It keeps the highest number
 * accepted and a bitmap of the {@link #SIZE} numbers up to it; a number above the highest moves
 * the window up, one inside it is accepted if its bit is clear, one below it is refused. So
 * requests that overtake each other on the way (the sender's connections run in parallel) are
 * accepted in any order, as long as no request is overtaken by {@link #SIZE} others.
 *
 * <p>Also the newest signing time accepted: once it is more than
 * {@link InternalAuth#MAX_SKEW_MILLIS} old, every request accepted so far fails the time check,
 * so the window is forgotten and the next number starts it afresh. That is what lets a sender
 * whose numbers went back (restarted with a wall clock behind its earlier start) be heard again
 * after at most that long.
 *
 * <p>Memory: {@link #SIZE} bits and two longs, fixed. Thread safe (its own monitor).
 */
final class ReplayWindow {
  /** Sequence numbers remembered below the highest: 8 KiB per sender. */
  static final int SIZE = 1 << 16;

  private final long[] seen = new long[SIZE / Long.SIZE]; // bit (n mod SIZE): n was accepted
  private long highest = -1; // -1: nothing accepted (or forgotten)
  private long newestSignedMillis;

  /**
   * Accepts {@code sequence} (non-negative) of a request signed at {@code signedMillis}, received
   * at {@code nowMillis}; or says why not.
   */
  synchronized Optional<String> accept(long sequence, long signedMillis, long nowMillis) {
    if (highest >= 0 && nowMillis - newestSignedMillis > InternalAuth.MAX_SKEW_MILLIS) forget();
    if (highest < 0 || sequence > highest) {
      moveUpTo(sequence);
    } else if (sequence <= highest - SIZE) {
      return Optional.of("its sequence number " + sequence + " is below the replay window (the sender's highest is "
          + highest + ", the window " + SIZE + "): a replayed or long-delayed request");
    } else if (isSeen(sequence)) {
      return Optional.of("its sequence number " + sequence + " was taken already: a replayed request");
    }
    markSeen(sequence);
    newestSignedMillis = Math.max(newestSignedMillis, signedMillis);
    return Optional.empty();
  }

  private void moveUpTo(long sequence) {
    if (highest < 0 || sequence - highest >= SIZE) {
      Arrays.fill(seen, 0);
    } else {
      // The numbers that enter the window were never seen: clear what their slots held.
      for (long n = highest + 1; n <= sequence; n++) seen[slot(n)] &= ~bit(n);
    }
    highest = sequence;
  }

  private void forget() {
    Arrays.fill(seen, 0);
    highest = -1;
    newestSignedMillis = 0;
  }

  private boolean isSeen(long n) {
    return (seen[slot(n)] & bit(n)) != 0;
  }

  private void markSeen(long n) {
    seen[slot(n)] |= bit(n);
  }

  private static int slot(long n) {
    return (int) ((n & (SIZE - 1)) >>> 6);
  }

  private static long bit(long n) {
    return 1L << (n & 63);
  }
}
