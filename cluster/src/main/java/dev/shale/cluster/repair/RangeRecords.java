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
  private final EntryIterator scan;
  private final SharedRange range;
  private final int leafBits;
  private final @Nullable BitSet leaves; // null: every leaf
  private @Nullable Entry next;

  /**
   * @param scan the node's whole store, tombstones included, in key order; taken over
   * @param leaves the leaves (of {@code 2^leafBits}) whose records are wanted; null for all
   */
  public RangeRecords(EntryIterator scan, SharedRange range, int leafBits, @Nullable BitSet leaves) {
    this.scan = scan;
    this.range = range;
    this.leafBits = RepairTree.checkedLeafBits(leafBits);
    this.leaves = leaves;
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
      Entry candidate = scan.next();
      // The leaf test first: it costs one hash, the range test a preference list.
      if ((leaves == null || leaves.get(RepairTree.leafOf(candidate.key(), leafBits))) && range.contains(candidate.key())) {
        next = candidate;
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
