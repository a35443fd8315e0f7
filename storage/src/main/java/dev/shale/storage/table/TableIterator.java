package dev.shale.storage.table;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The records of a table in key order, read one data block at a time: a block is checked against
 * its crc when the iteration reaches it. As it goes it checks what a crc cannot vouch for across
 * blocks: keys strictly increase, and the table holds exactly the footer's entry_count records.
 * Not thread safe (one iterator per thread); the table must stay open while it is used.
 */
final class TableIterator implements Iterator<Entry> {
  private final Table table;
  private int nextBlock;
  private DataBlock block;
  private int nextInBlock;
  private byte[] previousKey;
  private long returned;

  TableIterator(Table table) {
    this.table = table;
  }

  @Override
  public boolean hasNext() {
    while (block == null || nextInBlock == block.count()) {
      if (nextBlock == table.blockCount()) {
        checkEntryCount();
        return false;
      }
      block = table.readBlock(nextBlock++);
      nextInBlock = 0;
    }
    return true;
  }

  @Override
  public Entry next() {
    if (!hasNext()) throw new NoSuchElementException();
    Entry entry = block.entryAt(nextInBlock);
    if (previousKey != null && Keys.compare(previousKey, entry.key()) >= 0) {
      throw table.corruptBlock(
          nextBlock - 1, "key of entry " + nextInBlock + " does not follow the previous key");
    }
    nextInBlock++;
    previousKey = entry.key();
    returned++;
    return entry;
  }

  private void checkEntryCount() {
    if (returned != table.entryCount()) {
      throw table.corruptBlock(table.blockCount() - 1,
          "table holds " + returned + " records, its footer says " + table.entryCount());
    }
  }
}
