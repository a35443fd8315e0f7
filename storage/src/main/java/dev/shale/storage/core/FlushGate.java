package dev.shale.storage.core;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A test hook that holds flushes back: while held, the flush thread waits before starting its
 * next flush. {@link #awaitIdle} then waits for a flush in progress to end, which gives a test a
 * moment when no file in the directory changes but by writes of its own.
 */
final class FlushGate {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private boolean held; // guarded by lock
  private boolean cancelled; // guarded by lock
  private boolean flushing; // guarded by lock

  void hold() {
    lock.lock();
    try {
      held = true;
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

  /** Waits until no flush runs; true if that happened within {@code timeoutMillis}. */
  boolean awaitIdle(long timeoutMillis) throws InterruptedException {
    long remaining = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    lock.lock();
    try {
      while (flushing) {
        if (remaining <= 0) return false;
        remaining = changed.awaitNanos(remaining);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Called by the flush thread before a flush: waits while held; false once cancelled. */
  boolean enter() throws InterruptedException {
    lock.lock();
    try {
      while (held && !cancelled) changed.await();
      if (cancelled) return false;
      flushing = true;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Called by the flush thread after a flush, failed or not. */
  void exit() {
    lock.lock();
    try {
      flushing = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Lets the flush thread go at close, held or not. */
  void cancel() {
    lock.lock();
    try {
      cancelled = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
