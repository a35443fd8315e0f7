package dev.shale.storage.core;

import dev.shale.storage.Engine;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.table.FoundRecord;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns the winner of a read into what {@link Engine#read} returns: a copy, or a lease of the value
 * in place that keeps the read view it was found in retained until closed. Counts the leases
 * open. Thread safe.
 */
final class ValueLeases {
  private final AtomicLong open = new AtomicLong();

  /**
   * {@code found}, the winner of {@code key} in {@code view}, as a record for the caller. The
   * caller's reference on {@code view} passes to the lease when the value is lent (true), and
   * stays the caller's to release when it is copied (false); see {@link Outcome}.
   */
  Outcome lendOrCopy(byte[] key, FoundRecord found, ReadView view) {
    MemorySegment value = found.value();
    if (value == null || value.byteSize() < Engine.LEND_MIN_VALUE_BYTES) {
      return new Outcome(new ReadRecord.Copied(found.copy(key)), false);
    }
    // The view is released before the count goes down: a count of 0 means every file a lease
    // pinned is let go (and, if a compaction replaced it, deleted).
    ReadRecord.Lent lent = new ReadRecord.Lent(key, found.version(), value, () -> {
      view.release();
      open.decrementAndGet();
    });
    open.incrementAndGet();
    return new Outcome(lent, true);
  }

  /** Leases handed out and not yet closed. */
  long open() {
    return open.get();
  }

  /** A record for the caller; {@code holdsView}: it took over the caller's reference on the view. */
  record Outcome(ReadRecord record, boolean holdsView) {
    Outcome {
      Objects.requireNonNull(record, "record");
    }
  }
}
