package dev.shale.server.http;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * One connection's part of the node's {@link AnswerBudget}: the answer bytes the connection holds
 * (reserved for its reads running, and of its answers not yet written to the socket), and the
 * rule for starting another read. A read may start when the connection holds nothing, or when
 * what it holds plus the read's reservation stays within its share; and, either way, when the
 * node's budget grants the reservation, at once or after waiting parked in line. A connection
 * whose client does not read its answers thus holds at most its share (or one answer), and the
 * node at most its budget.
 *
 * <p>Confined to the connection's event loop.
 */
final class AnswerShare {
  private final AnswerBudget budget;
  private final long shareBytes;
  private final Executor loop;
  private final Runnable onRoom; // run on the loop when a read that waited may start
  private long heldBytes;
  private AnswerBudget.@Nullable Parked parked; // a reservation waiting in the node's line
  private long grantedBytes; // reserved for the read at the head of the connection's calls, not yet taken
  private boolean roomScheduled;
  // A read was held back, or the connection was found full: onRoom is owed when bytes are given
  // back. Without it a release schedules nothing (most answers fit at once, and a task per
  // answer would cost the event loop more than the answer's own write).
  private boolean roomWanted;
  private boolean closed;

  AnswerShare(AnswerBudget budget, long shareBytes, Executor loop, Runnable onRoom) {
    this.budget = budget;
    this.shareBytes = shareBytes;
    this.loop = loop;
    this.onRoom = onRoom;
  }

  /** A connection's share of a node budget of {@code limitBytes}: a quarter of it, and at least {@code oneAnswerBytes}. */
  static long shareOf(long limitBytes, long oneAnswerBytes) {
    return Math.min(limitBytes, Math.max(limitBytes / 4, oneAnswerBytes));
  }

  /**
   * Takes {@code bytes} for a read about to start, if the rules above allow it now; if not,
   * returns false and runs {@code onRoom} once they might. The same read asks again then, and
   * no other read of the connection asks in between.
   */
  boolean tryTake(long bytes) {
    long wanted = budget.fit(bytes);
    if (closed || parked != null) return false;
    if (grantedBytes > 0) { // the read that parked asks again
      assert grantedBytes == wanted : "granted " + grantedBytes + " for a read of " + wanted;
      grantedBytes = 0;
      heldBytes += wanted;
      return true;
    }
    if (heldBytes > 0 && heldBytes + wanted > shareBytes) {
      roomWanted = true; // released writes call onRoom
      return false;
    }
    if (budget.tryReserve(wanted)) {
      heldBytes += wanted;
      return true;
    }
    parked = budget.park(wanted, loop, () -> granted(wanted));
    return false;
  }

  /**
   * A read took {@code reservedBytes} and its answer came to {@code answerBytes}: keeps those
   * instead, gives the rest back, and returns what is held now for the answer.
   */
  long settle(long reservedBytes, long answerBytes) {
    if (answerBytes > reservedBytes) {
      budget.forceReserve(answerBytes - reservedBytes);
      heldBytes += answerBytes - reservedBytes;
    } else {
      release(reservedBytes - answerBytes);
    }
    return answerBytes;
  }

  /** Gives back bytes held for an answer (written, or dropped). */
  void release(long bytes) {
    if (bytes == 0) return;
    heldBytes -= bytes;
    assert heldBytes >= 0 : "released more than held: " + heldBytes;
    budget.release(bytes);
    scheduleRoom();
  }

  /** Whether the connection holds its whole share: read no more from it until some is written. */
  boolean isFull() {
    boolean full = heldBytes >= shareBytes;
    if (full) roomWanted = true;
    return full;
  }

  long heldBytes() {
    return heldBytes;
  }

  /** The connection is gone: withdraws a parked read; what its answers hold is released as they are dropped. */
  void close() {
    closed = true;
    AnswerBudget.@Nullable Parked waiting = parked;
    parked = null;
    if (waiting != null && !budget.cancel(waiting)) return; // granted: granted() gives it back
    budget.release(grantedBytes);
    grantedBytes = 0;
  }

  private void granted(long bytes) { // on the loop
    if (closed) {
      budget.release(bytes);
      return;
    }
    parked = null;
    grantedBytes = bytes;
    onRoom.run();
  }

  // Writes complete inside a flush, deep in the caller's stack: the next read starts afterwards.
  private void scheduleRoom() {
    if (!roomWanted || roomScheduled || closed) return;
    roomWanted = false;
    roomScheduled = true;
    try {
      loop.execute(() -> {
        roomScheduled = false;
        if (!closed) onRoom.run();
      });
    } catch (RejectedExecutionException e) {
      // The event loop is shutting down, and the connection with it: nothing more to start.
    }
  }
}
