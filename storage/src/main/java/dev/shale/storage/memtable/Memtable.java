package dev.shale.storage.memtable;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.table.FoundRecord;
import dev.shale.storage.table.Table;
import dev.shale.storage.util.Murmur3.Hash128;
import dev.shale.storage.util.RefCount;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * A sorted in-memory table outside the Java heap; one record per key, the winner by
 * {@link Entry#newer}.
 *
 * <p>Thread safety: {@link #add} is called by one thread at a time (the engine's write leader, or
 * recovery); every other method by any number of threads at once, concurrently with the adder,
 * without blocking. The engine freezes a memtable (stops adding to it) before flushing it, after
 * which its iterator and counters are exact.
 *
 * <p>Lifetime: the memtable's native memory is freed when its last reference is released. The
 * creator holds the first reference; each read view that lists the memtable holds one more
 * ({@link #retain}). A read through a released memtable fails with an IllegalStateException, never
 * reads freed memory.
 */
public final class Memtable {
  /*
   * Design. An ArenaSkipList of distinct keys in a MemtableArena (native memory, so the collector
   * never scans or moves a memtable: see MemtableArena for why). Each node's payload references
   * the key's current record:
   *
   *   +0   version      long
   *   +8   valueLength  int, -1 for a tombstone
   *   +12  the value's bytes
   *
   * A record that wins over the one held is written to a new block and swapped in with a release
   * store; the block it displaced stays until the memtable is freed, and counts in sizeBytes(),
   * which is memory held, not live data. Single writer: the counters are volatile fields written
   * after the step that justifies them, so a reader may see them a moment behind the list.
   *
   * Point reads of absent keys. A MemtableFilter holds every key ever added (set before the list
   * step), so get() of a key the memtable never held usually answers without searching the list.
   */

  /** The memtable size a {@link #Memtable()} sizes its filter and chunks for: the engine's default. */
  static final long DEFAULT_SIZE_BYTES = EngineOptions.defaults().memtableSizeBytes();

  // A record in the arena: version:i64 value_length:i32 [expires_at:i64] value. Not on disk, so
  // the layout is free. Only an expiring value pays for expires_at (unaligned, after the length):
  // its value_length carries EXPIRING, a bit no real length reaches (values are at most 256 MiB).
  private static final int VERSION = 0;
  private static final int VALUE_LENGTH = 8;
  private static final int VALUE = 12;
  private static final int EXPIRING = 1 << 30;
  private static final int EXPIRY_BYTES = 8;
  private static final int TOMBSTONE_LENGTH = -1;

  /** The fewest native bytes a record takes: an empty key's node of height 1 and a tombstone. */
  static final long MIN_RECORD_BYTES = ArenaSkipList.nodeBytes(0, 1) + VALUE + 4;

  private final MemtableArena arena;
  private final ArenaSkipList list;
  private final long headBytes;
  private final MemtableFilter filter;
  // Invariant: > 0 while the memtable may be read; the arena is closed when it reaches 0.
  private final RefCount references = new RefCount("memtable");
  private volatile int entryCount;
  // Bounds of every version ever added, including records later displaced by a newer one:
  // a superset of the versions held, which is all a reader skipping tables needs.
  private volatile long minVersion = Long.MAX_VALUE;
  private volatile long maxVersion = Long.MIN_VALUE;

  /** A memtable sized for {@link #DEFAULT_SIZE_BYTES} bytes of records. */
  public Memtable() {
    this(DEFAULT_SIZE_BYTES);
  }

  /**
   * A memtable whose key filter and memory chunks are sized for {@code expectedSizeBytes} of
   * records (the engine's memtableSizeBytes): more records only raise the filter's false
   * positives and take more chunks.
   */
  public Memtable(long expectedSizeBytes) {
    this.arena = new MemtableArena(expectedSizeBytes);
    this.list = new ArenaSkipList(arena);
    this.headBytes = arena.allocatedBytes();
    this.filter = new MemtableFilter(expectedSizeBytes);
  }

  /**
   * Keeps, per key, the record {@link Entry#newer} picks (docs/format.md, "Conventions"). A record
   * that loses to the one held is dropped. The entry's bytes are copied. One caller at a time.
   */
  @SuppressWarnings("NonAtomicVolatileUpdate") // one writer: see the counters above
  public void add(Entry entry) {
    trackVersion(entry.version());
    filter.add(Table.filterHash(entry.key())); // before the list: see "Memory model" in MemtableFilter
    long node = list.prepareInsert(entry.key());
    if (node == MemtableArena.NULL) {
      list.insertPrepared(entry.key(), writeRecord(entry));
      entryCount++; // single writer
    } else if (!heldWins(node, entry)) {
      list.setPayload(node, writeRecord(entry));
    }
  }

  /** The record of key (a value or a tombstone), or null. Lock free. */
  public @Nullable Entry get(byte[] key) {
    return get(key, Table.filterHash(key));
  }

  /**
   * {@link #get(byte[])} with {@code keyHash} = {@link Table#filterHash}(key) already computed: a
   * read hashes its key once for every memtable and table it consults.
   */
  public @Nullable Entry get(byte[] key, Hash128 keyHash) {
    FoundRecord found = find(key, keyHash);
    return found == null ? null : found.copy(key);
  }

  /**
   * As {@link #get(byte[], Hash128)}, the record left where it lies: its value a view of the
   * memtable's native memory, valid while the caller holds a reference ({@link #retain}). A record
   * once written never changes (a newer one is written elsewhere and swapped in), so the view
   * stays what it was when found.
   */
  public @Nullable FoundRecord find(byte[] key, Hash128 keyHash) {
    if (!filter.mayContain(keyHash)) return null;
    long node = list.find(key);
    return node == MemtableArena.NULL ? null : record(node);
  }

  /**
   * Native bytes held by records and their skip-list nodes, displaced records included (they are
   * freed with the memtable); the fixed head node and unused chunk space are not counted.
   */
  public long sizeBytes() {
    return arena.allocatedBytes() - headBytes;
  }

  /** Distinct keys held. */
  public int entryCount() {
    return entryCount;
  }

  public boolean isEmpty() {
    return entryCount == 0;
  }

  /** The lowest version ever added; Long.MAX_VALUE when empty. */
  public long minVersion() {
    return minVersion;
  }

  /** The highest version ever added; Long.MIN_VALUE when empty. */
  public long maxVersion() {
    return maxVersion;
  }

  /**
   * All records in key order, each a copy: weakly consistent while the writer runs, exact once
   * frozen. The memtable must stay retained while the iterator is used.
   */
  public Iterator<Entry> iterator() {
    return new RecordIterator(list.first(), null);
  }

  /**
   * The records with {@code fromInclusive <= key < toExclusive} (a null bound: unbounded on that
   * side) in key order, each a copy, weakly consistent like {@link #iterator()}. Empty when
   * {@code toExclusive <= fromInclusive}.
   */
  public Iterator<Entry> iterator(byte @Nullable [] fromInclusive, byte @Nullable [] toExclusive) {
    long first = fromInclusive == null ? list.first() : list.seek(fromInclusive);
    return new RecordIterator(first, toExclusive);
  }

  /** Takes one more reference. Fails if the memtable was already freed. */
  public void retain() {
    if (!references.tryRetain()) throw new IllegalStateException("memtable already freed");
  }

  /** Lets go of one reference; the last one frees the memtable's native memory. */
  public void release() {
    if (references.release()) arena.close();
  }

  private long writeRecord(Entry entry) {
    byte[] value = entry.value();
    int expiryBytes = entry.expires() ? EXPIRY_BYTES : 0;
    long record = arena.allocate(VALUE + expiryBytes + (value == null ? 0 : value.length));
    MemorySegment segment = arena.segment(record);
    long offset = MemtableArena.offset(record);
    segment.set(ValueLayout.JAVA_LONG, offset + VERSION, entry.version());
    int length = value == null ? TOMBSTONE_LENGTH : entry.expires() ? EXPIRING | value.length : value.length;
    segment.set(ValueLayout.JAVA_INT, offset + VALUE_LENGTH, length);
    if (entry.expires()) segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + VALUE, entry.expiresAtMillis());
    if (value != null) ArenaBytes.write(value, segment, offset + VALUE + expiryBytes);
    return record;
  }

  // Entry.newer(held, entry) == held. Versions decide almost always, read in place; a tie (a
  // replica receiving the same write again) is left to Entry.newer, the rule's one home.
  @SuppressWarnings("ReferenceEquality") // which of the two objects newer() chose, not equal bytes
  private boolean heldWins(long node, Entry entry) {
    long record = list.payload(node);
    long version = arena.segment(record).get(ValueLayout.JAVA_LONG, MemtableArena.offset(record) + VERSION);
    if (version != entry.version()) return version > entry.version();
    Entry held = entry(node);
    return Entry.newer(held, entry) == held;
  }

  private Entry entry(long node) {
    return record(node).copy(list.key(node));
  }

  private FoundRecord record(long node) {
    long record = list.payload(node);
    MemorySegment segment = arena.segment(record);
    long offset = MemtableArena.offset(record);
    long version = segment.get(ValueLayout.JAVA_LONG, offset + VERSION);
    int length = segment.get(ValueLayout.JAVA_INT, offset + VALUE_LENGTH);
    if (length == TOMBSTONE_LENGTH) return new FoundRecord(version, null);
    if ((length & EXPIRING) == 0) return new FoundRecord(version, segment.asSlice(offset + VALUE, length));
    long expiresAtMillis = segment.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + VALUE);
    return new FoundRecord(version, segment.asSlice(offset + VALUE + EXPIRY_BYTES, length & ~EXPIRING), expiresAtMillis);
  }

  private void trackVersion(long version) {
    // Single writer: read-compare-write of the volatiles is exact, and a reader sees each bound
    // widened before the record it covers enters the list.
    if (version < minVersion) minVersion = version;
    if (version > maxVersion) maxVersion = version;
  }

  /** Walks level 0 from a node to the end or to the first key >= an exclusive bound. */
  private final class RecordIterator implements Iterator<Entry> {
    private final byte @Nullable [] toExclusive;
    private long node;

    RecordIterator(long first, byte @Nullable [] toExclusive) {
      this.toExclusive = toExclusive;
      this.node = withinBound(first);
    }

    @Override
    public boolean hasNext() {
      return node != MemtableArena.NULL;
    }

    @Override
    public Entry next() {
      if (node == MemtableArena.NULL) throw new NoSuchElementException();
      Entry e = entry(node);
      node = withinBound(list.next(node));
      return e;
    }

    // The bound is checked once per step, as the walk reaches a node: NULL past it.
    private long withinBound(long candidate) {
      boolean past = candidate != MemtableArena.NULL && toExclusive != null
          && list.compareKey(candidate, toExclusive) >= 0;
      return past ? MemtableArena.NULL : candidate;
    }
  }
}
