package dev.shale.server;

import java.util.concurrent.atomic.LongAdder;

/**
 * Whether a read is worth trying from memory first ({@link dev.shale.storage.Engine#readFromMemory}
 * on an event loop). A try that memory answers spares the read two thread hand-offs; one that
 * needs the disk costs the event loop a search that the storage worker then does again. On a store
 * that fits its caches nearly every try is answered; on one far larger than them few are, and
 * trying every read made GETs slower there than not trying at all (docs/perf/single-node.md, "GETs
 * answered from memory on the event loop"). So this keeps an exponentially weighted share of the
 * recent tries that were answered: while it is at least {@link #MIN_SHARE}, every read tries; below
 * it, one read in {@link #SAMPLE} does, which keeps the share current and notices when memory
 * starts answering again (a block cache warmed up, a working set that shrank).
 *
 * <p>Thread safe, loosely: the event loops update the share without a lock, and an update lost to a
 * race only leaves it a little stale. It is a hint; every answer stays the engine's. The counts
 * ({@link MemoryReads}) are exact.
 */
final class MemoryReadOdds implements MemoryReads {
  /** The share's unit: 1.0. */
  static final int ONE = 1 << 16;
  /**
   * Below this share of answered tries, reads stop trying (but for the samples): a try that
   * needs the disk costs about a third of what an answered one saves, so trying pays from about a
   * quarter answered on.
   */
  static final int MIN_SHARE = ONE / 4;
  /** While below {@link #MIN_SHARE}: one read in this many still tries. */
  static final int SAMPLE = 16;
  // Each try moves the share 1/32 of the way to 1 (answered) or 0: about the last 32 tries count.
  private static final int WEIGHT_SHIFT = 5;

  private volatile int share = ONE; // a fresh node tries: its memtable answers what was just written
  private int notTried; // counts reads that did not try, for the samples; racy on purpose
  private final LongAdder tries = new LongAdder();
  private final LongAdder answered = new LongAdder();

  /** Whether the next read should try memory first. */
  boolean worthTrying() {
    if (share >= MIN_SHARE) return true;
    return ++notTried % SAMPLE == 0;
  }

  /** Notes how a try ended: {@code answered} by memory, or needing the disk. */
  void tried(boolean answered) {
    tries.increment();
    if (answered) this.answered.increment();
    int now = share;
    share = now + (((answered ? ONE : 0) - now) >> WEIGHT_SHIFT);
  }

  @Override
  public long tries() {
    return tries.sum();
  }

  @Override
  public long answered() {
    return answered.sum();
  }

  @Override
  public double recentShare() {
    return (double) share / ONE;
  }

  /** The weighted share of recent tries answered, in units of {@link #ONE}. */
  int share() {
    return share;
  }
}
