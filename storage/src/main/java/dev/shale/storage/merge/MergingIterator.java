package dev.shale.storage.merge;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.table.FoundRecord;
import dev.shale.storage.table.PeekableRecords;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Merges sorted sources (each: strictly increasing keys, one record per key) into one sorted
 * stream with one record per key: the winner by {@link Entry#newer}. Lazy; holds one key per
 * source, and one record per source that cannot be peeked at ({@link PeekableRecords}).
 *
 * <p>A source that yields a key not above its previous one breaks the contract every source
 * promises; the merge refuses it with IllegalStateException rather than return records out of
 * order. Exceptions from the sources (a CorruptionException from a table) pass through. Not
 * thread safe: one thread at a time, like the sources it reads.
 */
public final class MergingIterator implements Iterator<Entry> {
  /*
   * Design. A binary min-heap of cursors, one per source that still has records, ordered by the
   * key of the record the cursor is at (ties by the source's position in the list, so the order
   * is deterministic). A cursor at a peekable source holds only that record's key: the record
   * stays in the source (a table's block) until it is taken, copied out, or skipped; a cursor at
   * any other source holds the record itself. So a merge of k tables holds k keys and copies out
   * one value per key returned, never the values of the records it leaves out.
   *
   * next(). When no child of the top is at the top's key, no cursor is (every cursor at that key
   * would have only such cursors above it in the heap): the top's record is taken, its cursor
   * moves on and sifts down, O(log k) key comparisons and no heap node allocated. Otherwise every
   * cursor at the key is taken off the heap, the winner is chosen by FoundRecord.newer (versions
   * first; values compared in place only on a tie), its record is taken and the others skipped,
   * and the cursors move on and go back into the heap.
   *
   * The first record of every source is pulled on the first hasNext(), not in of(): building the
   * iterator does no I/O.
   */

  private final List<? extends Iterator<Entry>> sources;
  private final Cursor[] heap;
  private final Cursor[] atKey; // next()'s scratch: the cursors at the key being returned
  private int size; // Invariant: heap[0, size) is a min-heap by (key, order); heap[size..] is null.
  private boolean primed;

  private MergingIterator(List<? extends Iterator<Entry>> sources) {
    this.sources = sources;
    heap = new Cursor[sources.size()];
    atKey = new Cursor[sources.size()];
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
    Cursor top = heap[0];
    if (!childAtKey(1, top.key) && !childAtKey(2, top.key)) {
      Entry only = top.take();
      if (top.advance()) {
        siftDown(0);
      } else {
        removeTop();
      }
      return only;
    }
    int same = 0;
    while (size > 0 && Keys.compare(heap[0].key, top.key) == 0) {
      atKey[same++] = heap[0];
      removeTop();
    }
    Cursor winner = atKey[0];
    FoundRecord winning = winner.record();
    for (int i = 1; i < same; i++) {
      FoundRecord other = atKey[i].record();
      if (FoundRecord.newer(winning, other) == other) {
        winner = atKey[i];
        winning = other;
      }
    }
    Entry won = winner.take();
    for (int i = 0; i < same; i++) {
      Cursor c = atKey[i];
      atKey[i] = null;
      if (c != winner) c.skip();
      if (c.advance()) add(c);
    }
    return won;
  }

  /** Pulls each source's first record and builds the heap from the sources that have one. */
  private void prime() {
    primed = true;
    int filled = 0;
    for (int i = 0; i < sources.size(); i++) {
      Cursor c = new Cursor(sources.get(i), i);
      if (c.advance()) heap[filled++] = c;
    }
    size = filled;
    for (int i = size / 2 - 1; i >= 0; i--) siftDown(i);
  }

  private boolean childAtKey(int child, byte[] key) {
    return child < size && Keys.compare(heap[child].key, key) == 0;
  }

  private void removeTop() {
    heap[0] = heap[--size];
    heap[size] = null;
    if (size > 0) siftDown(0);
  }

  private void add(Cursor c) {
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!less(c, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = c;
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
    int byKey = Keys.compare(a.key, b.key);
    return byKey != 0 ? byKey < 0 : a.order < b.order;
  }

  /**
   * A source and the record it is at: for a peekable source its key only (the record stays in
   * the source until taken or skipped), for any other the record itself.
   */
  private static final class Cursor {
    final Iterator<Entry> source;
    final @Nullable PeekableRecords peekable; // source, when it can be peeked at
    final int order; // the source's position in the list: breaks key ties in the heap
    byte[] key = new byte[0]; // the current record's key
    private byte @Nullable [] previousKey; // null before the first record
    private @Nullable Entry held; // a source that cannot be peeked at: its current record

    Cursor(Iterator<Entry> source, int order) {
      this.source = source;
      this.peekable = source instanceof PeekableRecords p ? p : null;
      this.order = order;
    }

    /** Moves to the source's next record (the current one was taken or skipped); false at its end. */
    boolean advance() {
      if (!source.hasNext()) return false;
      byte[] next;
      if (peekable != null) {
        next = peekable.peekKey();
      } else {
        held = source.next();
        next = held.key();
      }
      if (previousKey != null && Keys.compare(next, previousKey) <= 0) {
        throw new IllegalStateException("merge source " + order + " yielded key "
            + Keys.toDisplay(next) + " after " + Keys.toDisplay(previousKey)
            + ": sources must hold strictly increasing keys");
      }
      previousKey = key = next;
      return true;
    }

    /** The current record, compared in place. */
    FoundRecord record() {
      if (peekable != null) return peekable.peekRecord();
      Entry e = Objects.requireNonNull(held, "advance() holds the record");
      byte[] value = e.value();
      return new FoundRecord(e.version(), value == null ? null : MemorySegment.ofArray(value), e.expiresAtMillis());
    }

    /** The current record, copied out of a peekable source; {@link #advance} must follow. */
    Entry take() {
      if (peekable != null) return peekable.next();
      Entry e = Objects.requireNonNull(held, "advance() holds the record");
      held = null;
      return e;
    }

    /** Leaves the current record out; {@link #advance} must follow. */
    void skip() {
      if (peekable != null) peekable.skip();
      held = null;
    }
  }
}
