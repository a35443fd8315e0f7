package dev.shale.storage.table;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import java.lang.foreign.MemorySegment;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The records of a table in key order from an optional start key to an optional end key, read one
 * data block at a time: a block is checked against its crc (or found checked in the block cache)
 * when the iteration reaches it, and not added to the cache. As it
 * goes it checks what a crc cannot vouch for across blocks: keys strictly increase, and a walk of
 * the whole table meets exactly the footer's entry_count records. Not thread safe (one iterator
 * per thread); the table must stay open while it is used.
 */
final class TableIterator implements Iterator<Entry> {
  /*
   * Seek. The index holds each block's last key, so the first block whose last key is >= from is
   * the only one where the range can start; a binary search inside it finds the first key >= from.
   * Both happen on the first hasNext(), so building an iterator does no I/O.
   *
   * End. The end bound is compared with the next key where it lies in the mapped block, before
   * that record is decoded: the record past the range costs a comparison, not a copy of its value.
   *
   * Memory: one DataBlock (a view of the mapping, a few objects) and the previous key.
   */

  private final Table table;
  private final boolean wholeTable; // started at the first record: the entry count can be checked
  private final @Nullable MemorySegment end; // null: to the last record
  private byte @Nullable [] seekKey; // null once sought (or when starting from the first record)
  private int nextBlock;
  private @Nullable DataBlock block; // null before the first block and once done
  private int nextInBlock;
  private byte @Nullable [] previousKey; // null before the first record
  private long returned;
  private boolean done;

  TableIterator(Table table, byte @Nullable [] fromInclusive, byte @Nullable [] toExclusive) {
    this.table = table;
    this.wholeTable = fromInclusive == null;
    this.seekKey = fromInclusive;
    this.end = toExclusive == null ? null : MemorySegment.ofArray(toExclusive);
  }

  @Override
  public boolean hasNext() {
    if (done) return false;
    if (seekKey != null) seek(seekKey);
    DataBlock current = block;
    while (current == null || nextInBlock == current.count()) {
      if (nextBlock == table.blockCount()) {
        if (wholeTable) checkEntryCount();
        return finish();
      }
      current = block = table.readBlock(nextBlock++, false);
      nextInBlock = 0;
    }
    if (end != null && current.compareKeyAt(nextInBlock, end) >= 0) return finish();
    return true;
  }

  @Override
  public Entry next() {
    if (!hasNext()) throw new NoSuchElementException();
    Entry entry = Objects.requireNonNull(block, "hasNext() found a block").entryAt(nextInBlock);
    if (previousKey != null && Keys.compare(previousKey, entry.key()) >= 0) {
      throw table.corruptBlock(
          nextBlock - 1, "key of entry " + nextInBlock + " does not follow the previous key");
    }
    nextInBlock++;
    previousKey = entry.key();
    returned++;
    return entry;
  }

  /** Positions the iteration at the first record whose key is {@code >= seekKey}. */
  private void seek(byte[] key) {
    int first = table.findBlock(key);
    nextBlock = first;
    if (first < table.blockCount()) {
      DataBlock found = table.readBlock(nextBlock++, false);
      block = found;
      nextInBlock = found.seek(key);
    }
    seekKey = null;
  }

  private boolean finish() {
    done = true;
    block = null;
    return false;
  }

  private void checkEntryCount() {
    if (returned != table.entryCount()) {
      throw table.corruptBlock(table.blockCount() - 1,
          "table holds " + returned + " records, its footer says " + table.entryCount());
    }
  }
}
