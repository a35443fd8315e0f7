package dev.shale.storage.table;

import dev.shale.storage.util.NativeMemory;
import java.lang.foreign.MemorySegment;
import org.jspecify.annotations.Nullable;

/**
 * The data blocks of one table as one iterator reads them, in order: a block the block cache
 * holds is taken from there (pinned until the iterator moves on); any other is cut out of a
 * read-ahead window, read from the disk in one piece with the blocks after it ({@link ReadAhead}),
 * checked, and decompressed if need be into a buffer of the iterator's own. Blocks read this way
 * are not offered to the cache: a scan or compaction reads each once, and would only push out the
 * blocks gets come back to.
 *
 * <p>Memory: the window (native, at most the read-ahead's largest window, or one block if a block
 * is larger) and the decompression buffer (at most one block's contents, 1 MiB), freed by
 * {@link #close}. Not thread safe; the table must stay open until close.
 */
final class SequentialBlocks implements AutoCloseable {
  private final Table table;
  private final ReadAhead readAhead;
  private @Nullable MemorySegment window; // native, owned: bytes [windowStart, windowStart + windowBytes) of the file
  private long windowStart;
  private long windowBytes;
  private long nextWindowBytes;
  private @Nullable MemorySegment decompressed; // native, owned: the contents of the last compressed block
  private @Nullable LoadedBlock pinned; // the cached block handed out last, held until the next call

  SequentialBlocks(Table table, ReadAhead readAhead) {
    this.table = table;
    this.readAhead = readAhead;
    this.nextWindowBytes = readAhead.firstBytes();
  }

  /**
   * Data block {@code block}, checked. Valid until the next call or {@link #close}: its bytes may
   * be overwritten or freed then.
   */
  DataBlock block(int block) {
    unpin();
    BlockHandle handle = table.blockHandle(block);
    LoadedBlock cached = table.cachedBlock(handle);
    MemorySegment contents;
    if (cached != null) {
      pinned = cached;
      contents = cached.contents();
    } else {
      contents = StoredBlock.dataContents(stored(block, handle), handle.offset(), table.formatVersion(), table.path(),
          this::decompressionBuffer);
    }
    return DataBlock.open(contents, table.formatVersion(), handle.offset(), table.path());
  }

  /** Frees the window and the buffer, and lets a pinned block go. Idempotent. */
  @Override
  public void close() {
    unpin();
    window = free(window);
    decompressed = free(decompressed);
  }

  // The stored bytes of block (at handle): in the window, or read with the whole blocks after it
  // that fit in the next window, so that no read ends mid-block and no byte is read twice.
  private MemorySegment stored(int block, BlockHandle handle) {
    MemorySegment current = window;
    if (current != null && handle.offset() >= windowStart && handle.end() <= windowStart + windowBytes) {
      return current.asSlice(handle.offset() - windowStart, handle.length());
    }
    long limit = handle.offset() + nextWindowBytes;
    long end = handle.end();
    for (int next = block + 1; next < table.blockCount(); next++) {
      long nextEnd = table.blockHandle(next).end();
      if (nextEnd > limit) break;
      end = nextEnd;
    }
    long bytes = end - handle.offset();
    nextWindowBytes = readAhead.next(nextWindowBytes);
    // Only an iterator whose windows have grown to the largest reads on long enough to be worth
    // reading ahead of: a short scan (a seek and a hundred records) would read a window it never
    // uses (seekrandom read 207 KiB a seek with a prefetch after every window, RocksDB 107).
    boolean longRun = nextWindowBytes == readAhead.maxBytes();
    // Keep the buffer unless it is too small, or much larger than windows are now (a big block's).
    if (current == null || current.byteSize() < bytes || current.byteSize() > Math.max(bytes, readAhead.maxBytes())) {
      free(current);
      window = null;
      current = NativeMemory.allocate(bytes);
      window = current;
    }
    windowStart = handle.offset();
    windowBytes = 0; // until the read succeeds, nothing in the window is valid
    table.readStored(current.asSlice(0, bytes), handle.offset());
    windowBytes = bytes;
    // The disk reads the next window while this one is decoded (posix_fadvise WILLNEED): the
    // next read finds it in the page cache, or waits only for what is left of it.
    long next = handle.offset() + bytes;
    long ahead = Math.min(nextWindowBytes, table.dataEnd() - next);
    if (longRun && ahead > 0) table.prefetch(next, ahead);
    return current.asSlice(0, handle.length());
  }

  private MemorySegment decompressionBuffer(long length) {
    MemorySegment buffer = decompressed;
    if (buffer == null || buffer.byteSize() < length) {
      free(buffer);
      decompressed = null;
      // Blocks of a table are about the same size: room for a little more saves regrowing.
      buffer = NativeMemory.allocate(Math.max(length, Math.min(length * 2, TableFormat.MAX_COMPRESSED_CONTENTS_BYTES)));
      decompressed = buffer;
    }
    return buffer.asSlice(0, length);
  }

  private void unpin() {
    LoadedBlock held = pinned;
    pinned = null;
    if (held != null) held.release();
  }

  private static @Nullable MemorySegment free(@Nullable MemorySegment memory) {
    if (memory != null) NativeMemory.free(memory);
    return null;
  }
}
