package dev.shale.storage.util;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reference count of something whose memory is freed by its last holder (a memtable, a read
 * view, a cached block): it starts at one, the creator's, and the release that takes it to zero
 * tells its caller to free. A count at zero is never revived, so a holder that finds the thing
 * being freed sees that ({@link #tryRetain} false) rather than use freed memory.
 */
public final class RefCount {
  private final String what; // names the thing in the error of a release too many
  // Invariant: > 0 while any holder may use the thing; the step to 0 happens exactly once.
  private final AtomicInteger count = new AtomicInteger(1);

  /** A count of one; {@code what} names the counted thing in errors ("memtable"). */
  public RefCount(String what) {
    this.what = what;
  }

  /** Takes a reference, unless the last one is gone already (then false: it is freed or being freed). */
  public boolean tryRetain() {
    int n;
    do {
      n = count.get();
      if (n == 0) return false;
    } while (!count.compareAndSet(n, n + 1));
    return true;
  }

  /**
   * Gives a reference back: true if it was the last, and the caller must free the thing now. A
   * release more than the references taken is an IllegalStateException.
   */
  public boolean release() {
    int after = count.decrementAndGet();
    if (after < 0) throw new IllegalStateException(what + " released too often");
    return after == 0;
  }
}
