package dev.shale.storage.table;

import dev.shale.storage.Compression;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Writes a table file (docs/format.md, "Table") from records in key order, streaming: data blocks
 * go to the file as they fill, and only the index entries (a key per block) and the filter's
 * hashes (16 bytes per key) are held until the end. Not thread safe; one writer per file.
 */
public final class TableWriter {
  private final Path file;
  private final long fileNumber;
  private final int blockSizeBytes;
  private final TableOutput out;
  private final BlockBuilder dataBlock;
  private final @Nullable BloomFilterBuilder filter; // null when bloomBitsPerKey is 0
  // Per finished data block: its first and last keys (the entries' own arrays) and where it went.
  private final List<byte[]> blockFirstKeys = new ArrayList<>();
  private final List<byte[]> blockLastKeys = new ArrayList<>();
  private final List<BlockHandle> blockHandles = new ArrayList<>();
  private byte @Nullable [] blockFirstKey; // the open data block's first key; null while it is empty
  private byte @Nullable [] smallestKey; // null before the first entry
  private byte @Nullable [] lastKey; // null before the first entry
  private long entryCount;
  private long minVersion = Long.MAX_VALUE;
  private long maxVersion = Long.MIN_VALUE;

  private TableWriter(
      Path file, long fileNumber, Vfs.WritableFile output, int blockSizeBytes, int bloomBitsPerKey,
      Compression compression) {
    this.file = file;
    this.fileNumber = fileNumber;
    this.blockSizeBytes = blockSizeBytes;
    this.out = new TableOutput(output);
    this.dataBlock = BlockBuilder.forData(out, compression);
    this.filter = bloomBitsPerKey == 0 ? null : new BloomFilterBuilder(bloomBitsPerKey);
  }

  /**
   * Writes entries (strictly increasing keys, one per key; checked, IllegalArgumentException
   * otherwise) to a new file, fsyncs it, and returns its metadata with level 0. The file must not
   * exist; on any failure the partial file is deleted. Syncing the directory is the caller's job.
   *
   * @throws IllegalArgumentException for an empty iterator (a table with no records is never
   *     written), out-of-order or duplicate keys, bad sizes, or a file number below 1 (the footer
   *     records it: docs/format.md, "Footer")
   */
  public static TableMeta write(
      Vfs vfs, Path file, long fileNumber, Iterator<Entry> entries, int blockSizeBytes,
      int bloomBitsPerKey) throws IOException {
    return write(vfs, file, fileNumber, entries, blockSizeBytes, bloomBitsPerKey, Compression.NONE);
  }

  /** As {@link #write(Vfs, Path, long, Iterator, int, int)}, data blocks compressed with {@code compression} where it pays. */
  public static TableMeta write(
      Vfs vfs, Path file, long fileNumber, Iterator<Entry> entries, int blockSizeBytes,
      int bloomBitsPerKey, Compression compression) throws IOException {
    if (fileNumber < 1) throw new IllegalArgumentException("file numbers start at 1: " + fileNumber);
    if (blockSizeBytes < 1) {
      throw new IllegalArgumentException("blockSizeBytes must be >= 1: " + blockSizeBytes);
    }
    if (bloomBitsPerKey < 0) {
      throw new IllegalArgumentException("bloomBitsPerKey must be >= 0: " + bloomBitsPerKey);
    }
    if (!entries.hasNext()) {
      throw new IllegalArgumentException("a table with no records is never written: " + file);
    }
    try (Vfs.WritableFile output = vfs.create(file)) {
      try {
        TableWriter writer = new TableWriter(file, fileNumber, output, blockSizeBytes, bloomBitsPerKey, compression);
        while (entries.hasNext()) writer.add(Objects.requireNonNull(entries.next(), "null entry"));
        return writer.finish();
      } catch (IOException | RuntimeException | Error e) {
        deletePartialFile(vfs, file, e);
        throw e;
      }
    }
  }

  private void add(Entry entry) throws IOException {
    checkOrder(entry.key());
    if (dataBlock.isEmpty()) blockFirstKey = entry.key();
    dataBlock.addEntry(entry);
    if (filter != null) filter.add(entry.key());
    if (smallestKey == null) smallestKey = entry.key();
    lastKey = entry.key();
    entryCount++;
    minVersion = Math.min(minVersion, entry.version());
    maxVersion = Math.max(maxVersion, entry.version());
    // Closing after the entry that reaches the target keeps every block non-empty and lets one
    // big value make one big block (docs/format.md, "Blocks").
    if (dataBlock.sizeBytes() >= blockSizeBytes) finishDataBlock();
  }

  private void checkOrder(byte[] key) {
    if (lastKey != null && Keys.compare(lastKey, key) >= 0) {
      String problem = Keys.compare(lastKey, key) == 0
          ? " repeats the previous key"
          : " sorts before the previous key " + Keys.toDisplay(lastKey);
      throw new IllegalArgumentException(
          file + ": record " + entryCount + " key " + Keys.toDisplay(key) + problem);
    }
  }

  private void finishDataBlock() throws IOException {
    blockHandles.add(dataBlock.finish());
    // Both set by the add() that opened the block, and by every add() since.
    blockFirstKeys.add(Objects.requireNonNull(blockFirstKey, "a block has a first record"));
    blockLastKeys.add(Objects.requireNonNull(lastKey, "a block has a last record"));
    blockFirstKey = null;
  }

  /** Last data block, filter block, index block, footer; then fsync. */
  private TableMeta finish() throws IOException {
    if (!dataBlock.isEmpty()) finishDataBlock();
    BlockHandle filterHandle = filter == null ? new BlockHandle(out.position(), 0) : filter.writeTo(out);
    BlockHandle indexHandle = writeIndex();
    // The footer carries the number of the name written, so the table cannot pass for another.
    out.putBytes(new Footer(indexHandle, filterHandle, entryCount, minVersion, maxVersion,
        TableFormat.LATEST_FORMAT_VERSION, fileNumber).encode());
    out.sync();
    long sizeBytes = out.position();
    // Set by the first add(): write() refuses a table with no records.
    byte[] smallest = Objects.requireNonNull(smallestKey, "a table has a first record");
    byte[] largest = Objects.requireNonNull(lastKey, "a table has a last record");
    return new TableMeta(fileNumber, 0, sizeBytes, entryCount, minVersion, maxVersion, smallest, largest);
  }

  private BlockHandle writeIndex() throws IOException {
    BlockBuilder index = BlockBuilder.forIndex(out);
    for (int i = 0; i < blockHandles.size(); i++) {
      index.addIndexEntry(blockLastKeys.get(i), blockFirstKeys.get(i), blockHandles.get(i));
    }
    return index.finish();
  }

  private static void deletePartialFile(Vfs vfs, Path file, Throwable failure) {
    try {
      vfs.delete(file);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }
}
