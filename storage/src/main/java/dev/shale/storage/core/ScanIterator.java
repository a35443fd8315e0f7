package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.merge.MergingIterator;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * The iterator {@link LsmEngine#scan} returns: the merge of every source of one retained
 * {@link ReadView}, bounded to {@code [start, end)}, tombstones dropped unless asked for.
 *
 * <p>Lifetime: it owns one reference to its view from construction and releases it exactly once:
 * in {@link #close}, when the merge is exhausted, or when it finds the engine closed. Until then
 * the view keeps its tables open, whatever flushes (and later compactions) publish meanwhile.
 * Not thread safe: one thread at a time.
 */
final class ScanIterator implements EntryIterator {
  /*
   * Bounds. Every source is cut to [start, end) itself: memtables through subMap views, tables by
   * seeking their index to start and comparing end with the keys in place. So the merge never
   * sees a key outside the range and this class compares nothing. Tables whose key range misses
   * [start, end) are not opened at all.
   *
   * Tombstones. Dropping one is a step of the loop in hasNext(): a run of a million tombstones is
   * a million cheap steps through blocks read once each, never a new seek per tombstone.
   *
   * Memory. The merge holds a key per table source (the record itself stays in the block) and a
   * record per memtable source; each table source one block and its
   * read-ahead window (up to 256 KiB, ReadAhead.SCAN); memtable sources a skip-list position. A level below 0 is one source that reads its
   * tables in turn (LevelIterator), so the sources are the memtables, the level-0 tables and one
   * per deeper level: a scan costs O(sources), not O(range) nor O(tables).
   */

  private final LsmEngine engine;
  private final List<Iterator<Entry>> sources; // closed with the view: table sources hold read-ahead windows
  private final Iterator<Entry> merged;
  private final boolean includeTombstones;
  private final long nowMillis; // read once: the scan sees one instant's expiries
  private @Nullable ReadView view; // null once released
  private @Nullable Entry next; // the record hasNext() found and next() has not returned yet

  /** Takes over the caller's reference to {@code view}; {@code endExclusive} null: no end. */
  ScanIterator(LsmEngine engine, ReadView view, byte[] startInclusive,
      byte @Nullable [] endExclusive, boolean includeTombstones) {
    this.engine = engine;
    this.view = view;
    this.includeTombstones = includeTombstones;
    this.nowMillis = engine.nowMillis();
    this.sources = sources(view, startInclusive, endExclusive);
    this.merged = MergingIterator.of(sources);
  }

  /** The scan of an empty range: holds nothing, reads nothing. */
  static EntryIterator empty() {
    return new EntryIterator() {
      @Override
      public boolean hasNext() {
        return false;
      }

      @Override
      public Entry next() {
        throw new NoSuchElementException();
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public boolean hasNext() {
    return peek() != null;
  }

  @Override
  public Entry next() {
    Entry result = peek();
    if (result == null) throw new NoSuchElementException();
    next = null;
    return result;
  }

  @Override
  public void close() {
    next = null;
    ReadView held = view;
    if (held == null) return;
    view = null;
    try {
      Sources.closeAll(sources);
    } finally {
      held.release(); // after the sources: their tables stay open until then
    }
  }

  /** The view this scan pins; null once released (tests check what it holds). */
  @Nullable ReadView view() {
    return view;
  }

  // The next record to return, found if need be; null once the scan is exhausted or closed.
  private @Nullable Entry peek() {
    if (next != null) return next;
    if (view == null) return null;
    checkEngineOpen();
    while (merged.hasNext()) {
      // An expired value reads as a tombstone of its version (docs/design.md, "Expiring values").
      Entry candidate = merged.next().readAt(nowMillis);
      if (includeTombstones || !candidate.isTombstone()) {
        next = candidate;
        return candidate;
      }
    }
    close(); // exhausted: the tables need not wait for the caller's close()
    return null;
  }

  /** A closed engine has let its files go: the scan stops too, releasing its own pins. */
  private void checkEngineOpen() {
    try {
      engine.checkOpen();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * One source per memtable and per level-0 table that can hold keys of the range, and one per
   * deeper level with such tables (its tables in key order, read in turn).
   */
  private static List<Iterator<Entry>> sources(
      ReadView view, byte[] start, byte @Nullable [] end) {
    List<Iterator<Entry>> sources = new ArrayList<>();
    sources.add(view.active().iterator(start, end));
    for (FrozenMemtable f : view.frozen()) sources.add(f.memtable().iterator(start, end));
    for (SharedTable t : view.levels().level(0)) {
      if (t.overlaps(start, end)) sources.add(t.iterator(start, end));
    }
    for (int level = 1; level < Levels.COUNT; level++) {
      List<SharedTable> inRange = new ArrayList<>();
      for (SharedTable t : view.levels().level(level)) {
        if (t.overlaps(start, end)) inRange.add(t);
      }
      if (!inRange.isEmpty()) sources.add(LevelIterator.forScan(inRange, start, end));
    }
    return sources;
  }
}
