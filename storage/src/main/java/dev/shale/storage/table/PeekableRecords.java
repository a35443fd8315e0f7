package dev.shale.storage.table;

import dev.shale.storage.EntryIterator;

/**
 * Sorted records whose next one can be looked at where it lies, its value not copied out: the
 * merge copies only the record of each key that wins ({@code MergingIterator}) and skips the
 * others. A table's records are such a source; a merge of k of them holds k keys and one value
 * on the heap, not k values (with 16 MiB values, k copies took a 128 MiB heap).
 *
 * <p>{@link #peekKey}, {@link #peekRecord} and {@link #skip} may be called only after
 * {@link #hasNext} returned true; what they return describes the record {@link #next} would
 * return. Not thread safe.
 */
public interface PeekableRecords extends EntryIterator {
  /** The next record's key, not consumed; the array is the caller's to keep. */
  byte[] peekKey();

  /**
   * The next record, not consumed, its value a view of the source's memory: valid until the
   * source moves ({@link #next}, {@link #skip}).
   */
  FoundRecord peekRecord();

  /** Consumes the next record without copying it out. */
  void skip();
}
