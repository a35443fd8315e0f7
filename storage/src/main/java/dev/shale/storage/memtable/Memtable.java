package dev.shale.storage.memtable;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.table.Table;
import dev.shale.storage.util.Murmur3.Hash128;
import java.util.Collections;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A sorted, concurrent in-memory table; one record per key, the winner by {@link Entry#newer}.
 *
 * <p>Thread safety: every method may be called from any number of threads at once; reads never
 * block. The engine freezes a memtable (stops adding to it) before flushing it, after which its
 * iterator and counters are exact.
 */
public final class Memtable {
  /*
   * Design. A ConcurrentSkipListMap ordered by Keys.ORDER holds one Entry per key. A write does
   * not use compute()/merge(): ConcurrentSkipListMap may apply their function more than once,
   * and the size accounting must see exactly which record a write replaced. Instead add() runs
   * its own compare-and-set loop (putIfAbsent, then replace(key, old, new)), so that each
   * successful step knows the record it displaced. Counters are atomics updated after the map
   * step that justifies them; a reader racing a writer may see them a moment behind the map.
   *
   * Point reads of absent keys. A MemtableFilter holds every key ever added (set before the map
   * step), so get() of a key the memtable never held usually answers without searching the map.
   */

  /** The memtable size a {@link #Memtable()} sizes its filter for: the engine's default. */
  static final long DEFAULT_SIZE_BYTES = EngineOptions.defaults().memtableSizeBytes();

  /** A rough heap cost of one record beyond its key and value bytes (skip-list node, Entry). */
  static final int RECORD_OVERHEAD_BYTES = 64;

  private final ConcurrentSkipListMap<byte[], Entry> records = new ConcurrentSkipListMap<>(Keys.ORDER);
  private final AtomicLong sizeBytes = new AtomicLong();
  private final AtomicInteger entryCount = new AtomicInteger();
  // Bounds of every version ever added, including records later displaced by a newer one:
  // a superset of the versions held, which is all a reader skipping tables needs.
  private final AtomicLong minVersion = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong maxVersion = new AtomicLong(Long.MIN_VALUE);

  private final MemtableFilter filter;

  /** A memtable whose key filter is sized for {@link #DEFAULT_SIZE_BYTES} bytes of records. */
  public Memtable() {
    this(DEFAULT_SIZE_BYTES);
  }

  /**
   * A memtable whose key filter is sized for {@code expectedSizeBytes} of records (the engine's
   * memtableSizeBytes): more records only raise the filter's false positives.
   */
  public Memtable(long expectedSizeBytes) {
    this.filter = new MemtableFilter(expectedSizeBytes);
  }

  /**
   * Keeps, per key, the record {@link Entry#newer} picks (docs/format.md, "Conventions"). A record
   * that loses to the one held is dropped. The entry's arrays are kept, not copied.
   */
  public void add(Entry entry) {
    trackVersion(entry.version());
    filter.add(Table.filterHash(entry.key())); // before the map: see "Memory model" in MemtableFilter
    while (true) {
      Entry held = records.putIfAbsent(entry.key(), entry);
      if (held == null) {
        entryCount.incrementAndGet();
        sizeBytes.addAndGet(recordSizeBytes(entry));
        return;
      }
      if (Entry.newer(held, entry) == held) return;
      // replace() succeeds only if the key still maps to a record equal to held; otherwise
      // another writer got in between, and the loop judges the new holder.
      if (records.replace(entry.key(), held, entry)) {
        sizeBytes.addAndGet(recordSizeBytes(entry) - recordSizeBytes(held));
        return;
      }
    }
  }

  /** The record of key (a value or a tombstone), or null. Lock free. */
  public Entry get(byte[] key) {
    return get(key, Table.filterHash(key));
  }

  /**
   * {@link #get(byte[])} with {@code keyHash} = {@link Table#filterHash}(key) already computed: a
   * read hashes its key once for every memtable and table it consults.
   */
  public Entry get(byte[] key, Hash128 keyHash) {
    if (!filter.mayContain(keyHash)) return null;
    return records.get(key);
  }

  /** Approximate heap bytes held: keys + values + {@value #RECORD_OVERHEAD_BYTES} per record. */
  public long sizeBytes() {
    return sizeBytes.get();
  }

  public int entryCount() {
    return entryCount.get();
  }

  public boolean isEmpty() {
    return records.isEmpty();
  }

  /** The lowest version ever added; Long.MAX_VALUE when empty. */
  public long minVersion() {
    return minVersion.get();
  }

  /** The highest version ever added; Long.MIN_VALUE when empty. */
  public long maxVersion() {
    return maxVersion.get();
  }

  /**
   * All records in key order: weakly consistent while writers run, exact once frozen. Read only:
   * removing through it would bypass the size accounting.
   */
  public Iterator<Entry> iterator() {
    return Collections.unmodifiableCollection(records.values()).iterator();
  }

  /**
   * The records with {@code fromInclusive <= key < toExclusive} (a null bound: unbounded on that
   * side) in key order, through a view of the map: nothing is copied, and the iterator is weakly
   * consistent like {@link #iterator()}. Empty when {@code toExclusive <= fromInclusive}. Read only.
   */
  public Iterator<Entry> iterator(byte[] fromInclusive, byte[] toExclusive) {
    return Collections.unmodifiableCollection(range(fromInclusive, toExclusive).values()).iterator();
  }

  private NavigableMap<byte[], Entry> range(byte[] fromInclusive, byte[] toExclusive) {
    if (fromInclusive == null) return toExclusive == null ? records : records.headMap(toExclusive, false);
    if (toExclusive == null) return records.tailMap(fromInclusive, true);
    // subMap refuses inverted bounds; an inverted range is simply empty.
    if (Keys.compare(toExclusive, fromInclusive) <= 0) return Collections.emptyNavigableMap();
    return records.subMap(fromInclusive, true, toExclusive, false);
  }

  private void trackVersion(long version) {
    minVersion.accumulateAndGet(version, Math::min);
    maxVersion.accumulateAndGet(version, Math::max);
  }

  static long recordSizeBytes(Entry entry) {
    long valueBytes = entry.value() == null ? 0 : entry.value().length;
    return entry.key().length + valueBytes + RECORD_OVERHEAD_BYTES;
  }
}
