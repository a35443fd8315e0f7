package dev.shale.storage.table;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A table opened for the offline tools (docs/format.md, "Table"): its footer's and index's fields,
 * and a walk over every data block that checks each one on its own and goes on past a damaged one,
 * where a scan stops at the first. It reads with the engine's own readers ({@link Table},
 * {@link SequentialBlocks}, the blocks' decoders), so every check a read makes is made here, and
 * nothing here parses a byte itself. Read only; not thread safe; close it.
 */
public final class TableInspection implements AutoCloseable {
  /** What a walk over the data blocks meets, in file order. */
  public interface BlockVisitor {
    /** Data block {@code block}, at {@code offset} of the file, of {@code length} bytes, is about to be read. */
    default void block(int block, long offset, long length) {}

    /** A record of data block {@code block}, whose checks passed so far. */
    void record(int block, Entry record);

    /**
     * Data block {@code block} failed a check ({@code damage} names the file, the block's offset
     * and which check); its records from that point on are not read.
     */
    void damaged(int block, CorruptionException damage);
  }

  /**
   * What a walk found.
   *
   * @param records the records read, in blocks that passed and before the damage in those that did not
   * @param damagedBlocks the blocks that failed a check
   */
  public record Walked(long records, int damagedBlocks) {}

  private final Table table;

  private TableInspection(Table table) {
    this.table = table;
  }

  /**
   * Opens {@code path}, named {@code <fileNumber>.sst}: reads and checks its footer, index and
   * filter as the engine does (a CorruptionException naming the file and offset if the footer or
   * index is bad; a bad filter is reported by {@link #filterDamage}). Caches no block.
   */
  public static TableInspection open(Vfs vfs, Path path, long fileNumber) throws IOException {
    return new TableInspection(Table.open(vfs, path, fileNumber));
  }

  /**
   * Throws the CorruptionException opening throws if this is not the table {@code described}
   * (docs/format.md, "Recovery at open", step 1): {@link TableIdentity#check}.
   */
  public void checkIsTable(TableMeta described) {
    TableIdentity.check(table, described);
  }

  public Path path() {
    return table.path();
  }

  public long sizeBytes() {
    return table.sizeBytes();
  }

  public int formatVersion() {
    return table.formatVersion();
  }

  /** The file number its footer records (format_version 4), or 0 for a table of format_version 1 to 3. */
  public long footerFileNumber() {
    return table.footer().fileNumber();
  }

  public long entryCount() {
    return table.entryCount();
  }

  public long minVersion() {
    return table.minVersion();
  }

  public long maxVersion() {
    return table.maxVersion();
  }

  public long indexOffset() {
    return table.footer().index().offset();
  }

  public long indexLength() {
    return table.footer().index().length();
  }

  /** Where the filter block starts (where the index starts when {@link #filterLength} is 0: no filter). */
  public long filterOffset() {
    return table.footer().filter().offset();
  }

  public long filterLength() {
    return table.footer().filter().length();
  }

  public long footerOffset() {
    return table.footer().offset(table.sizeBytes());
  }

  /** Why the filter failed its checks and is not used (where, which check), or null. */
  public @Nullable String filterDamage() {
    return table.filterDamage();
  }

  public int blockCount() {
    return table.blockCount();
  }

  public long blockOffset(int block) {
    return table.blockHandle(block).offset();
  }

  /** Data block {@code block}'s length as stored, its trailer included. */
  public long blockLength(int block) {
    return table.blockHandle(block).length();
  }

  /** Data block {@code block}'s last key, as the index holds it. */
  public byte[] blockLastKey(int block) {
    return table.index().lastKey(block);
  }

  /** Data block {@code block}'s first key, as the index holds it (format_version 4), or null. */
  public byte @Nullable [] blockFirstKey(int block) {
    IndexBlock index = table.index();
    return index.hasFirstKeys() ? index.firstKey(block) : null;
  }

  /**
   * Reads every data block in order, handing each record to {@code visitor}: each block is
   * checked against its crc, decompressed and decoded as a read does, its keys checked to
   * increase across the whole table, and, when no block failed, the records counted against the
   * footer's {@code entry_count} (a failure of that count is reported on the last block).
   */
  public Walked walk(BlockVisitor visitor) {
    long records = 0;
    int damaged = 0;
    byte @Nullable [] previousKey = null;
    try (SequentialBlocks blocks = new SequentialBlocks(table, ReadAhead.SCAN)) {
      for (int block = 0; block < table.blockCount(); block++) {
        BlockHandle handle = table.blockHandle(block);
        visitor.block(block, handle.offset(), handle.length());
        try {
          for (DataBlock.Cursor cursor = blocks.block(block).seek(null); cursor.valid(); cursor.next()) {
            Entry record = cursor.entry();
            if (previousKey != null && Keys.compare(previousKey, record.key()) >= 0) {
              throw table.corruptBlock(block, "a key does not follow the key before it");
            }
            previousKey = record.key();
            records++;
            visitor.record(block, record);
          }
        } catch (CorruptionException e) {
          damaged++;
          visitor.damaged(block, e);
        }
      }
    }
    if (damaged == 0 && records != table.entryCount()) {
      damaged++;
      visitor.damaged(table.blockCount() - 1, table.corruptBlock(table.blockCount() - 1,
          "table holds " + records + " records, its footer says " + table.entryCount()));
    }
    return new Walked(records, damaged);
  }

  @Override
  public void close() {
    table.close();
  }
}
