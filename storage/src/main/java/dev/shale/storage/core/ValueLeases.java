package dev.shale.storage.core;

import dev.shale.storage.Engine;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.table.FoundRecord;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns the winner of a read into what {@link Engine#read} returns: a copy, or a lease of the value
 * in place that keeps the one memtable or table holding it open until closed (not the whole read
 * view: a client slow to read a large value then holds back the deletion of at most that table,
 * or the memory of that memtable). Counts the leases open. Thread safe.
 */
final class ValueLeases {
  private final AtomicLong open = new AtomicLong();

  /**
   * {@code winner}, the winner of {@code key}, as a record for the caller: copied when small or a
   * tombstone, else lent with a reference of its own on its source. Call it while the read view it
   * was found in is retained.
   */
  ReadRecord lendOrCopy(byte[] key, ReadView.Winner winner) {
    FoundRecord found = winner.record;
    MemorySegment value = found.value();
    if (value == null || value.byteSize() < Engine.LEND_MIN_VALUE_BYTES) return new ReadRecord.Copied(found.copy(key));
    Runnable unpin = winner.pinSource();
    // The source is released before the count goes down: a count of 0 means every file a lease
    // pinned is let go (and, if a compaction replaced it, deleted).
    ReadRecord.Lent lent = new ReadRecord.Lent(key, found.version(), found.expiresAtMillis(), value, () -> {
      unpin.run();
      open.decrementAndGet();
    });
    open.incrementAndGet();
    return lent;
  }

  /** Leases handed out and not yet closed. */
  long open() {
    return open.get();
  }
}
