package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.wal.LogWriter;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A write waiting in the engine's writer queue. All fields but the finals are guarded by the
 * engine's write lock.
 */
final class PendingWrite {
  /** {@link #callerVersion} of a put or delete: the engine's clock picks the version. */
  static final long CLOCK_VERSION = -1;

  final byte[] key; // null for a freeze request (see LsmEngine.compact)
  final byte[] value; // null for a tombstone
  final long callerVersion;
  final long deadlineNanos;
  // Made the first time this writer waits: a lone writer heads the queue at once and never does,
  // so most writes allocate none. Only waiting writers can miss a signal, so wake() may skip a
  // writer without one: it re-checks its state under the lock before it ever waits.
  private Condition turn;
  Entry entry; // set when a leader takes it into a group
  boolean taken;
  boolean done;
  boolean stallCounted;
  RuntimeException failure;

  PendingWrite(byte[] key, byte[] value, long callerVersion, long deadlineNanos) {
    this.key = key;
    this.value = value;
    this.callerVersion = callerVersion;
    this.deadlineNanos = deadlineNanos;
  }

  /** The condition this writer waits on, made from {@code lock} (the engine's, held) on first use. */
  Condition turn(Lock lock) {
    if (turn == null) turn = lock.newCondition();
    return turn;
  }

  /** Wakes this writer if it waits (the engine's lock held). */
  void wake() {
    if (turn != null) turn.signal();
  }

  /** A request to freeze the active memtable, not a write: it never joins a group. */
  boolean isFreezeRequest() {
    return key == null;
  }

  /** The bytes its record takes in the log, to size write groups. */
  long logBytes() {
    return LogWriter.recordBytes(key.length, value == null ? 0 : value.length);
  }

  /** The bytes a write group's records take in the log. */
  static long logBytes(List<PendingWrite> group) {
    long bytes = 0;
    for (PendingWrite p : group) bytes += p.logBytes();
    return bytes;
  }
}
