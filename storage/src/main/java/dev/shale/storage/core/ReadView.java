package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.memtable.Memtable;
import dev.shale.storage.table.BlockPins;
import dev.shale.storage.table.FoundRecord;
import dev.shale.storage.table.Table;
import dev.shale.storage.util.Murmur3.Hash128;
import dev.shale.storage.util.RefCount;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everything a read consults, frozen in one immutable object: the active memtable, the frozen
 * memtables newest first, and the tables by level. The engine publishes a new view when a
 * memtable is frozen, a flush lands or a compaction swaps its tables, so a reader holding a view
 * sees a consistent file set without taking a lock.
 *
 * <p>Lifetime: the engine holds one reference to its current view; each read takes another
 * ({@link #tryRetain}) and releases it. A view retains its memtables and tables, and lets them go
 * when its last reference goes, after the engine has replaced it: a memtable's native memory and
 * a table's open file outlive every read that may touch them.
 */
final class ReadView {
  private final Memtable active;
  private final List<FrozenMemtable> frozen;
  private final Levels levels;
  private final List<SharedTable> tables;
  // Invariant: > 0 while the view may be read; a view whose count reached 0 is never revived.
  private final RefCount references = new RefCount("read view");

  /**
   * A view retaining its memtables and the tables of {@code levels}; the caller keeps its own
   * references.
   */
  ReadView(Memtable active, List<FrozenMemtable> frozen, Levels levels) {
    this.active = active;
    this.frozen = List.copyOf(frozen);
    this.levels = levels;
    this.tables = levels.all();
    active.retain();
    for (FrozenMemtable f : this.frozen) f.memtable().retain();
    for (SharedTable t : this.tables) t.retain();
  }

  Memtable active() {
    return active;
  }

  /** Frozen memtables, newest first. */
  List<FrozenMemtable> frozen() {
    return frozen;
  }

  /** Every table: level 0 newest first, then each deeper level by key. */
  List<SharedTable> tables() {
    return tables;
  }

  Levels levels() {
    return levels;
  }

  /** This view with {@code active} frozen (for {@code logNumber}) and {@code fresh} active. */
  ReadView withFrozenActive(long logNumber, Memtable fresh) {
    List<FrozenMemtable> newFrozen = new ArrayList<>(frozen.size() + 1);
    newFrozen.add(new FrozenMemtable(active, logNumber));
    newFrozen.addAll(frozen);
    return new ReadView(fresh, newFrozen, levels);
  }

  /** This view with {@code flushed} replaced by {@code table}, its contents now on disk. */
  ReadView withFlushed(FrozenMemtable flushed, SharedTable table) {
    List<FrozenMemtable> newFrozen = new ArrayList<>(frozen);
    if (!newFrozen.remove(flushed)) throw new IllegalStateException("flushed memtable not in view");
    return new ReadView(active, newFrozen, levels.withFlushed(table));
  }

  /** This view with a compaction's {@code inputs} replaced by its {@code outputs}. */
  ReadView withCompacted(List<SharedTable> inputs, List<SharedTable> outputs) {
    return new ReadView(active, frozen, levels.withReplaced(inputs, outputs));
  }

  /** The record of {@code key} that wins, copied out ({@link #find}), or null. */
  @Nullable Entry get(byte[] key) {
    try (BlockPins pins = new BlockPins()) {
      FoundRecord found = find(key, pins);
      return found == null ? null : found.copy(key);
    }
  }

  /**
   * The record of {@code key} that wins (docs/format.md, "Conventions"), in place, or null: its
   * value is valid while this view is retained and {@code pins} are open (they hold the table
   * blocks the search read). Sources are searched newest first, but a record
   * written later with an older version (replication's write()) may sit in an older source, so
   * once a record of version v is found only sources that hold a version >= v are still
   * searched; {@link FoundRecord#newer} settles the rest. Levels do not order versions either
   * (a compaction moves old and new records down alike), so every level is consulted: all of
   * level 0, and in each deeper level the one table whose range holds the key. Damaged tables
   * set aside in level 0 come last, and only when their range holds the key: a newer record found
   * elsewhere spares a read of their damaged blocks. Nothing is copied: a record that loses
   * costs no allocation of its value.
   */
  @Nullable FoundRecord find(byte[] key, BlockPins pins) {
    return search(key, pins).best;
  }

  /**
   * The winner of {@code key}, as {@link #find}, with the memtable or table block that holds it,
   * which {@link Winner#pinSource} can keep beyond this view and these pins: a value lent past the
   * read then holds that one memtable or block, not every file and memtable of the view.
   */
  @Nullable Winner findWinner(byte[] key, BlockPins pins) {
    Search search = search(key, pins);
    FoundRecord best = search.best;
    return best == null ? null : new Winner(best, search.bestMemtable, pins, search.bestPin);
  }

  /** A winning record and its source: a memtable, or else pinned table block {@code pin}. */
  static final class Winner {
    final FoundRecord record;
    private final @Nullable Memtable memtable;
    private final BlockPins pins;
    private final int pin;

    private Winner(FoundRecord record, @Nullable Memtable memtable, BlockPins pins, int pin) {
      this.record = record;
      this.memtable = memtable;
      this.pins = pins;
      this.pin = pin;
    }

    /**
     * Takes a reference on the source, valid beyond the view's and the pins'; the returned action
     * gives it back (once). Call it while the view and the pins still hold the source.
     */
    Runnable pinSource() {
      if (memtable != null) {
        memtable.retain();
        return memtable::release;
      }
      return pins.hold(pin);
    }
  }

  private Search search(byte[] key, BlockPins pins) {
    // One hash serves every memtable's key filter and every table's Bloom filter.
    Search search = new Search(key, Table.filterHash(key), pins);
    search.consider(active);
    for (FrozenMemtable f : frozen) search.consider(f.memtable());
    for (SharedTable t : levels.level0Backlog()) search.consider(t);
    for (int level = 1; level < Levels.COUNT; level++) {
      SharedTable t = levels.find(level, key);
      if (t != null) search.consider(t);
    }
    for (SharedTable t : levels.setAside()) {
      // Only a key in its range: a filter's false positive would otherwise send a key below
      // its first key to its first block, which may be the damaged one.
      if (t.covers(key)) search.consider(t);
    }
    return search;
  }

  /** One read's search over the view's sources: the winner so far, and where it lies. */
  private static final class Search {
    private final byte[] key;
    private final Hash128 keyHash;
    private final BlockPins pins;
    private @Nullable FoundRecord best;
    private @Nullable Memtable bestMemtable; // the winner's memtable, or null if it lies in a table block
    private int bestPin = -1; // the winner's block among the pins, if it lies in a table

    Search(byte[] key, Hash128 keyHash, BlockPins pins) {
      this.key = key;
      this.keyHash = keyHash;
      this.pins = pins;
    }

    void consider(Memtable memtable) {
      // maxVersion is raised before a record enters the memtable, so this skip is never wrong.
      if (best != null && memtable.maxVersion() < best.version()) return;
      if (wins(memtable.find(key, keyHash))) {
        bestMemtable = memtable;
        bestPin = -1;
      }
    }

    void consider(SharedTable table) {
      if (pins.missedCache()) return; // a cache-only read that missed has no answer to find
      if (best != null && table.maxVersion() < best.version()) return;
      // A record found lies in the block find() pinned last.
      if (wins(table.find(key, keyHash, pins))) {
        bestMemtable = null;
        bestPin = pins.count() - 1;
      }
    }

    // Whether found beats the winner so far (FoundRecord.newer keeps the first of equals), and is now it.
    private boolean wins(@Nullable FoundRecord found) {
      if (found == null) return false;
      if (best != null && FoundRecord.newer(best, found) != found) return false;
      best = found;
      return true;
    }
  }

  boolean tryRetain() {
    return references.tryRetain();
  }

  void release() {
    if (!references.release()) return;
    active.release();
    for (FrozenMemtable f : frozen) f.memtable().release();
    for (SharedTable t : tables) t.release();
  }
}
