package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.wal.LogWriter;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;

/**
 * A write waiting in the engine's writer queue. All fields but the finals are guarded by the
 * engine's write lock.
 */
final class PendingWrite {
  /** {@link #callerVersion} of a put or delete: the engine's clock picks the version. */
  static final long CLOCK_VERSION = -1;

  private static final byte[] NO_KEY = {};

  private final boolean freezeRequest;
  final byte[] key; // empty for a freeze request
  final byte @Nullable [] value; // null for a tombstone (and a freeze request)
  final long callerVersion;
  final long expiresAtMillis; // Entry.NEVER but for an expiring value
  final long deadlineNanos;
  // Made the first time this writer waits: a lone writer heads the queue at once and never does,
  // so most writes allocate none (null until then). Only waiting writers can miss a signal, so
  // wake() may skip a writer without one: it re-checks its state under the lock before it waits.
  private @Nullable Condition turn;
  long version; // stamped when a leader takes it into a group
  boolean taken;
  boolean done;
  boolean stallCounted;
  @Nullable RuntimeException failure; // set when done, if the write failed; null if it succeeded

  private PendingWrite(boolean freezeRequest, byte[] key, byte @Nullable [] value,
      long callerVersion, long expiresAtMillis, long deadlineNanos) {
    this.freezeRequest = freezeRequest;
    this.key = key;
    this.value = value;
    this.callerVersion = callerVersion;
    this.expiresAtMillis = expiresAtMillis;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * A write of one record (value null: a tombstone) at {@code callerVersion} or CLOCK_VERSION,
   * expiring at {@code expiresAtMillis} (Entry.NEVER: it does not).
   */
  static PendingWrite write(byte[] key, byte @Nullable [] value, long callerVersion,
      long expiresAtMillis, long deadlineNanos) {
    return new PendingWrite(false, key, value, callerVersion, expiresAtMillis, deadlineNanos);
  }

  /** A request to freeze the active memtable (see LsmEngine.compact). */
  static PendingWrite freezeRequest(long deadlineNanos) {
    return new PendingWrite(true, NO_KEY, null, CLOCK_VERSION, Entry.NEVER, deadlineNanos);
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
    return freezeRequest;
  }

  /** The bytes its record takes in the log, to size write groups. */
  long logBytes() {
    // An expiring value's value_length counts its 8 bytes of expires_at (docs/format.md).
    int expiryBytes = expiresAtMillis == Entry.NEVER ? 0 : 8;
    return LogWriter.recordBytes(key.length, value == null ? 0 : value.length + expiryBytes);
  }

  /** The bytes a write group's records take in the log. */
  static long logBytes(List<PendingWrite> group) {
    long bytes = 0;
    for (PendingWrite p : group) bytes += p.logBytes();
    return bytes;
  }
}
