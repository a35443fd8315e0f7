package dev.shale.storage.table;

/**
 * How far ahead an iterator reads a table's data blocks: each read from the disk fetches the
 * block needed and the blocks after it, up to a window that starts at {@code firstBytes} and
 * doubles with each read up to {@code maxBytes} (never less than the block needed).
 *
 * <p>Point reads never read ahead (a get reads its one block); iterators read in order, so one
 * large read replaces many small ones (docs/design.md, "Reading tables").
 *
 * @param firstBytes the window of the first read (0: just the block needed)
 * @param maxBytes the largest window
 */
public record ReadAhead(long firstBytes, long maxBytes) {
  /** The window after a first read of just the block: a few blocks. */
  static final long SMALLEST_WINDOW_BYTES = 16 << 10;

  /**
   * Scans: the first read is just the block the scan starts in (a short scan reads no more than
   * it needs), then 16 KiB, doubling to 256 KiB, as RocksDB's iterators read ahead by themselves.
   */
  public static final ReadAhead SCAN = new ReadAhead(0, 256 << 10);

  /**
   * Compactions read every block of their inputs: 2 MiB at a time from the first (RocksDB's
   * {@code compaction_readahead_size} default).
   */
  public static final ReadAhead COMPACTION = new ReadAhead(2 << 20, 2 << 20);

  public ReadAhead {
    if (firstBytes < 0 || maxBytes < firstBytes || maxBytes < SMALLEST_WINDOW_BYTES) {
      throw new IllegalArgumentException("read-ahead windows must satisfy 0 <= first <= max, max >= 16 KiB: " + firstBytes
          + ", " + maxBytes);
    }
  }

  /** The window of the read after one of {@code window} bytes. */
  long next(long window) {
    return Math.min(maxBytes, Math.max(SMALLEST_WINDOW_BYTES, window * 2));
  }
}
