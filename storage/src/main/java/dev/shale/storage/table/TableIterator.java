package dev.shale.storage.table;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The records of a table in key order from an optional start key to an optional end key, read one
 * data block at a time through a read-ahead window ({@link SequentialBlocks}): a block is checked
 * against its crc (or found checked in the block cache) when the iteration reaches it, and not
 * added to the cache. As it
 * goes it checks what a crc cannot vouch for across blocks: keys strictly increase, and a walk of
 * the whole table meets exactly the footer's entry_count records. Not thread safe (one iterator
 * per thread); the table must stay open until the iterator is closed, which frees its window (so
 * does running out).
 */
final class TableIterator implements PeekableRecords {
  /*
   * Seek. The index holds each block's last key, so the first block whose last key is >= from is
   * the only one where the range can start; the block's own seek finds the first key >= from in
   * it. Both happen on the first hasNext(), so building an iterator does no I/O.
   *
   * End. The end bound is compared with the next key before that record is decoded: the record
   * past the range costs a comparison, not a copy of its value. Where the index holds each block's
   * first key (format 4), it is compared with the next block's first key before that block is
   * read: a block that starts at or past the end is never read, so a damaged block there fails no
   * range that ends before it (docs/format.md, "Index"). Without first keys (formats 1 to 3) a
   * range whose end lies past a block's last key must read the next block to learn where it starts.
   *
   * Advance. next() returns the cursor's entry and leaves the cursor on it; the following
   * hasNext() moves it on, so damage in a record is reported by the call that reaches it. skip()
   * consumes the entry without copying it out (a merge's record that lost to a newer one).
   *
   * Memory: the read-ahead window and decompression buffer (SequentialBlocks), one block's
   * cursor (a view of either, or of a cached block) and the previous key.
   */

  private final Table table;
  private final SequentialBlocks blocks;
  private final boolean wholeTable; // started at the first record: the entry count can be checked
  private final byte @Nullable [] end; // null: to the last record
  private byte @Nullable [] seekKey; // null once sought (or when starting from the first record)
  private int nextBlock;
  private DataBlock.@Nullable Cursor cursor; // null before the first block and once done
  private boolean consumed; // next() returned the cursor's entry: hasNext() moves past it
  private byte @Nullable [] previousKey; // null before the first record
  private byte @Nullable [] cursorKey; // the cursor's key once copied (peekKey), until it moves
  private long returned;
  private boolean done;

  TableIterator(Table table, byte @Nullable [] fromInclusive, byte @Nullable [] toExclusive, ReadAhead readAhead) {
    this.table = table;
    this.blocks = new SequentialBlocks(table, readAhead);
    this.wholeTable = fromInclusive == null;
    this.seekKey = fromInclusive;
    this.end = toExclusive;
  }

  @Override
  public boolean hasNext() {
    if (done) return false;
    if (cursorKey != null) return true; // peeked at, in range, not consumed: nothing moved since
    if (seekKey != null) seek(seekKey);
    DataBlock.Cursor current = cursor;
    if (consumed && current != null) {
      current.next();
      consumed = false;
    }
    while (current == null || !current.valid()) {
      if (nextBlock == table.blockCount()) {
        if (wholeTable) checkEntryCount();
        return finish();
      }
      if (startsAtOrPastEnd(nextBlock)) return finish();
      current = cursor = blocks.block(nextBlock++).seek(null);
    }
    if (end != null && current.compareKey(end) >= 0) return finish();
    return true;
  }

  @Override
  public Entry next() {
    byte[] key = peekKey();
    Entry entry = current().entry(key);
    consume(key);
    return entry;
  }

  @Override
  public byte[] peekKey() {
    if (!hasNext()) throw new NoSuchElementException();
    byte[] key = cursorKey;
    if (key == null) key = cursorKey = current().key();
    return key;
  }

  @Override
  public FoundRecord peekRecord() {
    if (!hasNext()) throw new NoSuchElementException();
    return current().record();
  }

  @Override
  public void skip() {
    consume(peekKey());
  }

  private DataBlock.Cursor current() {
    return Objects.requireNonNull(cursor, "hasNext() found a block");
  }

  // The cursor's entry is returned or skipped: the following hasNext() moves past it.
  private void consume(byte[] key) {
    if (previousKey != null && Keys.compare(previousKey, key) >= 0) {
      throw table.corruptBlock(nextBlock - 1, "a key does not follow the key before it");
    }
    consumed = true;
    cursorKey = null;
    previousKey = key;
    returned++;
  }

  /** Positions the iteration at the first record whose key is {@code >= seekKey}. */
  private void seek(byte[] key) {
    int first = table.findBlock(key);
    nextBlock = first;
    seekKey = null;
    // A block that starts at or past the end holds nothing of the range: hasNext() stops there.
    if (first < table.blockCount() && !startsAtOrPastEnd(first)) cursor = blocks.block(nextBlock++).seek(key);
  }

  /** True if the index shows that {@code block} and every block after it lie at or past the end. */
  private boolean startsAtOrPastEnd(int block) {
    return end != null && table.blockStartsAtOrAfter(block, end);
  }

  /** Frees the read-ahead window; {@link #hasNext} is false afterwards. Idempotent. */
  @Override
  public void close() {
    finish();
  }

  private boolean finish() {
    done = true;
    cursor = null;
    blocks.close();
    return false;
  }

  private void checkEntryCount() {
    if (returned != table.entryCount()) {
      throw table.corruptBlock(table.blockCount() - 1,
          "table holds " + returned + " records, its footer says " + table.entryCount());
    }
  }
}
