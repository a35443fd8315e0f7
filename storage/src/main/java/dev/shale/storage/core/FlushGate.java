package dev.shale.storage.core;

import dev.shale.storage.Env;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A test hook that holds flushes and compactions back: while held, the flush and compaction
 * threads wait before starting their next step. {@link #awaitIdle} then waits for the steps in
 * progress to end, which gives a test a moment when no file in the directory changes but by
 * writes of its own.
 */
final class FlushGate {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private boolean held; // guarded by lock
  private boolean cancelled; // guarded by lock
  private int running; // guarded by lock: flushes and compactions between enter and exit

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

  /** Waits until nothing runs; true if that happened within {@code timeoutMillis} on {@code env}'s clock. */
  boolean awaitIdle(long timeoutMillis, Env env) throws InterruptedException {
    long remaining = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    lock.lock();
    try {
      while (running > 0) {
        if (remaining <= 0) return false;
        remaining = env.awaitNanos(changed, remaining);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Called before a flush or compaction: waits while held; false once cancelled. */
  boolean enter() throws InterruptedException {
    lock.lock();
    try {
      while (held && !cancelled) changed.await();
      if (cancelled) return false;
      running++;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Called after a flush or compaction, failed or not. */
  void exit() {
    lock.lock();
    try {
      running--;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Lets the threads go at close, held or not. */
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
