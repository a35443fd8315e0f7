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
   * {@code compaction_readahead_size} default), when they merge few enough sources; see
   * {@link #forCompaction}.
   */
  public static final ReadAhead COMPACTION = new ReadAhead(2 << 20, 2 << 20);

  /** What all the sources of one compaction may hold in windows at once: they share it. */
  static final long COMPACTION_SHARED_BYTES = 16 << 20;

  /** The smallest window a compaction's source reads, however many sources share the budget. */
  static final long COMPACTION_SMALLEST_BYTES = 256 << 10;

  /**
   * The read-ahead of each of a compaction's {@code sources}: an equal share of 16 MiB, at most
   * {@link #COMPACTION}'s 2 MiB, at least 256 KiB. Each source holds its window until it closes,
   * so a compaction of many level-0 tables (36 when writes stall) at 2 MiB each would hold 84
   * MiB; this way a compaction holds 16 MiB at most up to 64 sources
   * ({@link #compactionBytes}), and its reads stay large enough to be sequential.
   */
  public static ReadAhead forCompaction(int sources) {
    long share = COMPACTION_SHARED_BYTES / Math.max(1, sources);
    long window = Math.clamp(share, COMPACTION_SMALLEST_BYTES, COMPACTION.maxBytes());
    return new ReadAhead(window, window);
  }

  /**
   * The most a compaction of at most {@code sources} sources holds in read-ahead windows: 2 MiB a
   * source up to 8, then 16 MiB, then 256 KiB a source past 64. It grows with {@code sources}, so
   * a budget sized for the most sources a compaction can have covers every compaction.
   */
  public static long compactionBytes(int sources) {
    return Math.min(sources * COMPACTION.maxBytes(), Math.max(COMPACTION_SHARED_BYTES, sources * COMPACTION_SMALLEST_BYTES));
  }

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
