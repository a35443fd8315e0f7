package dev.shale.server.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies the whole server may hold in memory at once. A connection reserves
 * a body's bytes before it buffers them and releases them once the storage call that uses the
 * body has returned; a body that does not fit is refused (503) instead of read.
 *
 * <p>Thread safe and lock free: every connection's event loop and every storage worker share one.
 */
public final class BodyBudget {
  private final long limitBytes;
  // Invariant: 0 <= reserved <= limitBytes.
  private final AtomicLong reserved = new AtomicLong();

  public BodyBudget(long limitBytes) {
    this.limitBytes = limitBytes;
  }

  /** Reserves {@code bytes} if they fit under the limit; returns whether they did. */
  boolean tryReserve(long bytes) {
    if (bytes == 0) return true;
    long now;
    do {
      now = reserved.get();
      if (bytes > limitBytes - now) return false;
    } while (!reserved.compareAndSet(now, now + bytes));
    return true;
  }

  /** Gives back bytes reserved earlier. */
  void release(long bytes) {
    if (bytes == 0) return;
    long after = reserved.addAndGet(-bytes);
    assert after >= 0 : "released more than was reserved: " + after;
  }

  long reservedBytes() {
    return reserved.get();
  }

  long limitBytes() {
    return limitBytes;
  }
}
