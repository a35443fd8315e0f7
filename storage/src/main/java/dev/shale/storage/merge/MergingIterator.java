package dev.shale.storage.merge;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Merges sorted sources (each: strictly increasing keys, one record per key) into one sorted
 * stream with one record per key: the winner by {@link Entry#newer}. Lazy; holds one record per
 * source.
 *
 * <p>A source that yields a key not above its previous one breaks the contract every source
 * promises; the merge refuses it with IllegalStateException rather than return records out of
 * order. Exceptions from the sources (a CorruptionException from a table) pass through. Not
 * thread safe: one thread at a time, like the sources it reads.
 */
public final class MergingIterator implements Iterator<Entry> {
  /*
   * Design. A binary min-heap of cursors, one per source that still has records, ordered by the
   * key of the record the cursor holds (ties by the source's position in the list, so the order
   * is deterministic). next() takes the top's record, then keeps taking the top while its key is
   * the same, keeping the winner by Entry.newer: every source that holds the key advances past it
   * in the same call, so no key is returned twice. Each advance replaces the top's record and sifts
   * it down: O(log k) key comparisons per record consumed, no heap node allocated or freed while
   * merging (the cursors are made once, each with its source's first record; a cursor whose
   * source is done leaves the heap), and keys are compared where they lie, never copied.
   *
   * The first record of every source is pulled on the first hasNext(), not in of(): building the
   * iterator does no I/O.
   */

  private final List<? extends Iterator<Entry>> sources;
  private final Cursor[] heap;
  private int size; // Invariant: heap[0, size) is a min-heap by (key, order); heap[size..] is null.
  private boolean primed;

  private MergingIterator(List<? extends Iterator<Entry>> sources) {
    this.sources = sources;
    heap = new Cursor[sources.size()];
  }

  /**
   * The merge of {@code sources}, in key order; a source earlier in the list wins nothing by it
   * (only {@link Entry#newer} decides). With one source, that source itself is returned.
   */
  public static Iterator<Entry> of(List<? extends Iterator<Entry>> sources) {
    if (sources.isEmpty()) return Collections.emptyIterator();
    if (sources.size() == 1) return sources.get(0);
    return new MergingIterator(sources);
  }

  @Override
  public boolean hasNext() {
    if (!primed) prime();
    return size > 0;
  }

  @Override
  public Entry next() {
    if (!hasNext()) throw new NoSuchElementException();
    Entry winner = heap[0].current;
    advanceTop();
    // Every source holding the same key sits at the top now, one after the other.
    while (size > 0 && Keys.compare(heap[0].current.key(), winner.key()) == 0) {
      winner = Entry.newer(winner, heap[0].current);
      advanceTop();
    }
    return winner;
  }

  /** Pulls each source's first record and builds the heap from the sources that have one. */
  private void prime() {
    primed = true;
    int filled = 0;
    for (int i = 0; i < sources.size(); i++) {
      Iterator<Entry> source = sources.get(i);
      if (source.hasNext()) heap[filled++] = new Cursor(source, i, source.next());
    }
    size = filled;
    for (int i = size / 2 - 1; i >= 0; i--) siftDown(i);
  }

  /** Moves the top cursor to its source's next record, or drops it when the source is done. */
  private void advanceTop() {
    Cursor top = heap[0];
    if (top.source.hasNext()) {
      Entry next = top.source.next();
      if (Keys.compare(next.key(), top.current.key()) <= 0) {
        throw new IllegalStateException("merge source " + top.order + " yielded key "
            + Keys.toDisplay(next.key()) + " after " + Keys.toDisplay(top.current.key())
            + ": sources must hold strictly increasing keys");
      }
      top.current = next;
    } else {
      heap[0] = heap[--size];
      heap[size] = null;
      if (size == 0) return;
    }
    siftDown(0);
  }

  private void siftDown(int i) {
    Cursor moving = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && less(heap[child + 1], heap[child])) child++;
      if (!less(heap[child], moving)) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = moving;
  }

  private static boolean less(Cursor a, Cursor b) {
    int byKey = Keys.compare(a.current.key(), b.current.key());
    return byKey != 0 ? byKey < 0 : a.order < b.order;
  }

  /** A source and the record it is at. */
  private static final class Cursor {
    final Iterator<Entry> source;
    final int order; // the source's position in the list: breaks key ties in the heap
    Entry current;

    Cursor(Iterator<Entry> source, int order, Entry first) {
      this.source = source;
      this.order = order;
      this.current = first;
    }
  }
}
