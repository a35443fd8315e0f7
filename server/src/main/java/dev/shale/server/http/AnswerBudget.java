package dev.shale.server.http;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The bytes of answers the whole node may hold at once: values read for answers not yet written
 * to the socket, copied to the heap or lent from the engine's native memory, counted from before
 * the call that reads them (64 KiB for a local read, the size of values lately seen, per
 * replica, for a coordinated read), then at their size once known, until their write completes. Unlike a request body, which can be refused (503) before it is read, an answer is
 * owed: a read that does not fit waits, parked, and is granted in arrival order as bytes are
 * given back. So the total never exceeds the limit, however many connections ask, except by
 * answers larger than their reservation ({@link #forceReserve}).
 *
 * <p>Thread safe: every connection's event loop shares one; a parked read is resumed on its own.
 */
public final class AnswerBudget {
  /** A read waiting for bytes; {@code granted} runs on {@code loop} once they are reserved for it. */
  public static final class Parked {
    private final long bytes;
    private final Executor loop;
    private final Runnable granted;

    private Parked(long bytes, Executor loop, Runnable granted) {
      this.bytes = bytes;
      this.loop = loop;
      this.granted = granted;
    }
  }

  private final long limitBytes;
  // Invariant: reserved <= limitBytes, but for forceReserve's excess; waiting is empty unless
  // its first entry does not fit (release grants from the front).
  private long reserved; // guarded by this
  private final ArrayDeque<Parked> waiting = new ArrayDeque<>(); // guarded by this

  public AnswerBudget(long limitBytes) {
    if (limitBytes <= 0) throw new IllegalArgumentException("limitBytes must be > 0: " + limitBytes);
    this.limitBytes = limitBytes;
  }

  /** The bytes one reservation may ask for: a reservation larger than the whole budget could never be granted. */
  public long fit(long bytes) {
    return Math.min(bytes, limitBytes);
  }

  /**
   * Reserves {@code bytes} (at most {@link #limitBytes}) now if nobody waits before and they fit;
   * returns whether it did.
   */
  public synchronized boolean tryReserve(long bytes) {
    checkFits(bytes);
    if (!waiting.isEmpty() || bytes > limitBytes - reserved) return false;
    reserved += bytes;
    return true;
  }

  /**
   * Queues a reservation of {@code bytes} behind every earlier one; once they are reserved,
   * {@code granted} runs on {@code loop}, and owns them. Cancel it with {@link #cancel}.
   */
  public Parked park(long bytes, Executor loop, Runnable granted) {
    checkFits(bytes);
    Parked parked = new Parked(bytes, loop, granted);
    synchronized (this) {
      waiting.addLast(parked);
    }
    grantWaiting(); // the bytes may have been released between tryReserve and here
    return parked;
  }

  /**
   * Withdraws a parked reservation; returns false if it was granted already (then its
   * {@code granted} runs, or ran, and owns the bytes).
   */
  boolean cancel(Parked parked) {
    boolean removed;
    synchronized (this) {
      removed = waiting.remove(parked);
    }
    if (removed) grantWaiting(); // it may have held back smaller ones behind it
    return removed;
  }

  /**
   * Counts {@code bytes} beyond a reservation, whether or not they fit: an answer turned out
   * larger than its reservation (a coordinated read's value larger than those lately seen, a
   * large value lent by the engine, or a value stored under a larger {@code --max-value-size});
   * it is in memory already.
   */
  public synchronized void forceReserve(long bytes) {
    reserved += bytes;
  }

  /** Gives back bytes reserved earlier, and grants the parked reservations that now fit, in order. */
  public void release(long bytes) {
    if (bytes == 0) return;
    synchronized (this) {
      reserved -= bytes;
      assert reserved >= 0 : "released more than was reserved: " + reserved;
    }
    grantWaiting();
  }

  synchronized long reservedBytes() {
    return reserved;
  }

  /** The answer bytes held now (reserved, and counted beyond reservations). */
  public synchronized long heldBytes() {
    return reserved;
  }

  public long limitBytes() {
    return limitBytes;
  }

  synchronized int parkedCount() {
    return waiting.size();
  }

  private void grantWaiting() {
    ArrayDeque<Parked> granted;
    synchronized (this) {
      if (waiting.isEmpty()) return; // the common case: nothing to grant, nothing to allocate
      granted = new ArrayDeque<>();
      for (Iterator<Parked> it = waiting.iterator(); it.hasNext(); ) {
        Parked first = it.next();
        if (first.bytes > limitBytes - reserved) break; // strictly in order: no overtaking
        reserved += first.bytes;
        it.remove();
        granted.add(first);
      }
    }
    for (Parked parked : granted) {
      try {
        parked.loop.execute(parked.granted);
      } catch (RejectedExecutionException e) {
        release(parked.bytes); // its event loop is gone, and so is its connection
      }
    }
  }

  private void checkFits(long bytes) {
    if (bytes < 0 || bytes > limitBytes) {
      throw new IllegalArgumentException("a reservation must be in [0, " + limitBytes + "]: " + bytes);
    }
  }
}
