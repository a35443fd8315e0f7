package dev.shale.storage;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A record read with {@link Engine#read}: copied to the heap as {@link Engine#get} returns it
 * ({@link Copied}), or a large value lent where it lies ({@link Lent}). Either way the caller
 * closes it once done; closing a copy does nothing.
 */
public sealed interface ReadRecord extends AutoCloseable permits ReadRecord.Copied, ReadRecord.Lent {

  /** The record's version. */
  long version();

  /** When the value expires; {@link Entry#NEVER} if it does not (and for a tombstone). */
  long expiresAtMillis();

  /** Ends the lease, if this record holds one. Idempotent; never throws. */
  @Override
  void close();

  /** The record with its value (if any) copied, as {@link Engine#get} returns it: nothing is lent. */
  record Copied(Entry entry) implements ReadRecord {
    public Copied {
      Objects.requireNonNull(entry, "entry");
    }

    @Override
    public long version() {
      return entry.version();
    }

    @Override
    public long expiresAtMillis() {
      return entry.expiresAtMillis();
    }

    @Override
    public void close() {}
  }

  /**
   * A value lent in place: {@link #value} is a read-only view of the engine's memory (a table
   * block's or a memtable's native memory), valid until {@link #close}. Until then the engine
   * keeps that block or memtable, and nothing else: see {@link Engine#read}.
   *
   * <p>Thread safe: it may be closed on any thread, any number of times; the first close ends the
   * lease. Reading the value after close is a bug the FFM API may or may not catch: a memtable's
   * memory fails with an IllegalStateException once freed, a block's is not guarded.
   */
  final class Lent implements ReadRecord {
    private final byte[] key;
    private final long version;
    private final long expiresAtMillis;
    private final MemorySegment value;
    private final Runnable endLease;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * A lease of {@code value} (viewed read-only from now on); {@code endLease} runs once, at the
     * first {@link #close}, and must not throw.
     */
    public Lent(byte[] key, long version, MemorySegment value, Runnable endLease) {
      this(key, version, Entry.NEVER, value, endLease);
    }

    /** A lease of a value expiring at {@code expiresAtMillis}, as {@link #Lent(byte[], long, MemorySegment, Runnable)}. */
    public Lent(byte[] key, long version, long expiresAtMillis, MemorySegment value, Runnable endLease) {
      this.key = Objects.requireNonNull(key, "key");
      this.version = version;
      this.expiresAtMillis = expiresAtMillis;
      this.value = value.asReadOnly();
      this.endLease = Objects.requireNonNull(endLease, "endLease");
    }

    /** The key read; the caller must not change it. */
    public byte[] key() {
      return key;
    }

    @Override
    public long version() {
      return version;
    }

    @Override
    public long expiresAtMillis() {
      return expiresAtMillis;
    }

    /** The value in place, read-only, valid until {@link #close}. */
    public MemorySegment value() {
      return value;
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) endLease.run();
    }

    @Override
    public String toString() {
      return "ReadRecord.Lent[key=" + Keys.toDisplay(key) + ", version=" + version + ", "
          + value.byteSize() + " bytes" + (closed.get() ? ", closed]" : "]");
    }
  }
}
