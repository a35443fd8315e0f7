package dev.shale.cluster.repair;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import java.util.BitSet;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A node's records of a {@link SharedRange} (and, when given, of some of its leaves or sub-leaves only), taken
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
  private final int indexBits; // the bits of a key's hash that name the parts selected: leaf bits, or sub-leaf bits
  private final @Nullable BitSet selected; // null: every leaf
  private final boolean digests; // values left out
  private @Nullable Entry next;
  private long scanned; // records of the store read so far

  /**
   * @param scan the node's whole store, tombstones included, in key order; taken over
   * @param leaves the leaves (of {@code 2^leafBits}) whose records are wanted; null for all
   */
  public RangeRecords(EntryIterator scan, SharedRange range, int leafBits, @Nullable BitSet leaves) {
    this(scan, range, leafBits, leafBits, leaves, false);
  }

  private RangeRecords(
      EntryIterator scan, SharedRange range, int leafBits, int indexBits, @Nullable BitSet selected, boolean digests) {
    this.scan = scan;
    this.range = range;
    this.leafBits = RepairTree.checkedLeafBits(leafBits);
    this.indexBits = indexBits;
    this.selected = selected;
    this.digests = digests;
  }

  /**
   * The digests of the records {@code selection} selects: each record with an empty value (a
   * tombstone stays a tombstone), as DIGESTS sends them (docs/format.md, "Repair requests").
   */
  public static RangeRecords digests(EntryIterator scan, SharedRange range, LeafSelection selection) {
    return new RangeRecords(scan, range, selection.leafBits(), selection.indexBits(), selection.subLeaves(), true);
  }

  /** Builds the tree of the records, in one pass, and closes the scan. */
  public RepairTree tree() {
    RepairTree tree = new RepairTree(leafBits);
    try (this) {
      while (hasNext()) {
        Entry record = next();
        tree.add(record.key(), record.version(), record.isTombstone(), record.expiresAtMillis());
      }
    }
    return tree;
  }

  /**
   * Builds the hashes of the {@code 2^subBits} sub-leaves of each leaf these records were
   * selected by (made with {@code leaves}), in one pass, and closes the scan.
   */
  public SubLeaves subLeaves(int subBits) {
    if (selected == null || indexBits != leafBits) throw new IllegalStateException("sub-leaves are of selected leaves");
    SubLeaves subLeaves = new SubLeaves(leafBits, subBits, selected);
    try (this) {
      while (hasNext()) {
        Entry record = next();
        subLeaves.add(record.key(), record.version(), record.isTombstone(), record.expiresAtMillis());
      }
    }
    return subLeaves;
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
      if ((selected == null || selected.get(RepairTree.leafOf(candidate.key(), indexBits))) && range.contains(candidate.key())) {
        next = digests && !candidate.isTombstone() ? new Entry(candidate.key(), candidate.version(), NO_VALUE, candidate.expiresAtMillis()) : candidate;
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
