package dev.shale.testkit.netns;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The delay that the proxies of one node's links apply, changed by the test while bytes flow: a
 * delay each chunk waits from the moment it was read, or held (no byte goes out until released).
 * Thread safe.
 */
final class LinkDelay {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private long delayNanos; // @GuardedBy("lock")
  private boolean held; // @GuardedBy("lock")
  private int writing; // @GuardedBy("lock"): writes started while not held and not yet done
  private long deliveredBytes; // @GuardedBy("lock")

  void set(Duration delay) {
    lock.lock();
    try {
      delayNanos = delay.toNanos();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The time a chunk read now may go out, by {@link System#nanoTime()}. */
  long dueNanos() {
    lock.lock();
    try {
      return System.nanoTime() + delayNanos;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Holds every byte from now on. Returns once the writes already started are done (or fails
   * past {@code timeout}), so that no byte goes out between this call and {@link #release}.
   */
  void hold(Duration timeout) throws InterruptedException {
    lock.lock();
    try {
      held = true;
      long left = timeout.toNanos();
      while (writing > 0) {
        if (left <= 0) throw new IllegalStateException(writing + " proxied writes still blocked after " + timeout);
        left = changed.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  void release() {
    lock.lock();
    try {
      held = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  long deliveredBytes() {
    lock.lock();
    try {
      return deliveredBytes;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until a chunk due at {@code dueNanos} may go out (its time came and nothing holds it), then counts a write as started. */
  void awaitTurn(long dueNanos) throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        long left = dueNanos - System.nanoTime();
        if (!held && left <= 0) break;
        if (held) changed.await();
        else changed.awaitNanos(left);
      }
      writing++;
    } finally {
      lock.unlock();
    }
  }

  /** Ends a write {@link #awaitTurn} started, of {@code bytes} delivered. */
  void wrote(int bytes) {
    lock.lock();
    try {
      writing--;
      deliveredBytes += bytes;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
