package dev.shale.cluster.repair;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.util.BitSet;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A node's records of a {@link SharedRange} (and, when given, of some of its leaves only), taken
 * from a scan of its whole store (tombstones included) in key order: the keys of a replica pair
 * are spread over the whole key space, so one sequential pass over the store is the cheapest way
 * to find them. Closing it closes the scan.
 *
 * <p>Not thread safe, as the scan it wraps.
 */
public final class RangeRecords implements EntryIterator {
  private static final byte[] NO_VALUE = new byte[0];
  /** Records read between two checks for an interrupt, less one. */
  private static final int INTERRUPT_CHECK_MASK = 4095;

  private final EntryIterator scan;
  private final SharedRange range;
  private final int leafBits;
  private final @Nullable BitSet leaves; // null: every leaf
  private final boolean digests; // values left out
  private @Nullable Entry next;
  private long scanned; // records of the store read so far

  /**
   * @param scan the node's whole store, tombstones included, in key order; taken over
   * @param leaves the leaves (of {@code 2^leafBits}) whose records are wanted; null for all
   */
  public RangeRecords(EntryIterator scan, SharedRange range, int leafBits, @Nullable BitSet leaves) {
    this(scan, range, leafBits, leaves, false);
  }

  private RangeRecords(EntryIterator scan, SharedRange range, int leafBits, @Nullable BitSet leaves, boolean digests) {
    this.scan = scan;
    this.range = range;
    this.leafBits = RepairTree.checkedLeafBits(leafBits);
    this.leaves = leaves;
    this.digests = digests;
  }

  /**
   * The digests of the records of {@code leaves}: each record with an empty value (a tombstone
   * stays a tombstone), as DIGESTS sends them (docs/format.md, "Repair requests").
   */
  public static RangeRecords digests(EntryIterator scan, SharedRange range, int leafBits, BitSet leaves) {
    return new RangeRecords(scan, range, leafBits, leaves, true);
  }

  /** Builds the tree of the records, in one pass, and closes the scan. */
  public RepairTree tree() {
    RepairTree tree = new RepairTree(leafBits);
    try (this) {
      while (hasNext()) {
        Entry record = next();
        tree.add(record.key(), record.version(), record.isTombstone());
      }
    }
    return tree;
  }

  @Override
  public boolean hasNext() {
    while (next == null && scan.hasNext()) {
      // A pass over a large store takes seconds: a node that stops interrupts it here.
      if ((++scanned & INTERRUPT_CHECK_MASK) == 0 && Thread.currentThread().isInterrupted()) {
        throw new RepairFailedException("interrupted after " + scanned + " records of the store");
      }
      Entry candidate = scan.next();
      // The leaf test first: it costs one hash, the range test a preference list.
      if ((leaves == null || leaves.get(RepairTree.leafOf(candidate.key(), leafBits))) && range.contains(candidate.key())) {
        next = digests && !candidate.isTombstone() ? new Entry(candidate.key(), candidate.version(), NO_VALUE) : candidate;
      }
    }
    return next != null;
  }

  @Override
  public Entry next() {
    if (!hasNext()) throw new NoSuchElementException();
    Entry record = Objects.requireNonNull(next);
    next = null;
    return record;
  }

  @Override
  public void close() {
    next = null;
    scan.close();
  }
}
