package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.wal.LogWriter;
import java.util.concurrent.locks.Condition;

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
  final Condition turn;
  final long deadlineNanos;
  Entry entry; // set when a leader takes it into a group
  boolean taken;
  boolean done;
  boolean stallCounted;
  RuntimeException failure;

  PendingWrite(byte[] key, byte[] value, long callerVersion, Condition turn, long deadlineNanos) {
    this.key = key;
    this.value = value;
    this.callerVersion = callerVersion;
    this.turn = turn;
    this.deadlineNanos = deadlineNanos;
  }

  /** A request to freeze the active memtable, not a write: it never joins a group. */
  boolean isFreezeRequest() {
    return key == null;
  }

  /** The bytes its record takes in the log, to size write groups. */
  long logBytes() {
    return LogWriter.recordBytes(key.length, value == null ? 0 : value.length);
  }
}
