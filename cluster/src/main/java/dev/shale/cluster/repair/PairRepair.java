package dev.shale.cluster.repair;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Keys;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Repairs one shared range between two replicas (docs/design.md, "Anti-entropy repair"):
 * compares their coarse trees, and when those differ their trees; refines the differing leaves
 * that both replicas hold records in to their sub-leaves and compares those; then walks both replicas' digests of the differing sub-leaves
 * (and of the differing leaves one side holds nothing in, whole) side by side in key order, and
 * copies each record one side lacks or holds older to it, with its original version, from the
 * side that holds the newer. Both sides end with the newer record of every key that differed: a
 * tombstone that is newer than a value wins and is copied, so repair never brings a deleted key
 * back.
 *
 * <p>Memory is bounded whatever the range: two trees, two sets of sub-leaves (at most 8 MiB
 * each), and one digest of each side at a time.
 */
final class PairRepair {
  /**
   * A pair first compares coarse trees of a 64th of the leaves (8 KiB at 2^16), and takes the
   * whole trees only when those differ. Trees with fewer than 2^9 leaves are compared whole.
   */
  static final int COARSE_SHIFT = 6;

  private final RepairSide a;
  private final RepairSide b;
  private final SharedRange range;
  private final int leafBits;
  private final int subBits;
  private final RepairThrottle throttle;
  private long recordsExchanged;
  private long bytesExchanged;

  /** @param subBits sub-leaves per differing leaf, {@code 2^subBits}; 0 takes digests of whole leaves */
  PairRepair(RepairSide a, RepairSide b, SharedRange range, int leafBits, int subBits, RepairThrottle throttle) {
    this.a = a;
    this.b = b;
    this.range = range;
    this.leafBits = leafBits;
    this.subBits = LeafSelection.checkedSubBits(subBits);
    this.throttle = throttle;
  }

  RepairReport run() {
    RepairTree treeA = null; // a local side's tree: built whole at once, its coarse tree computed from it
    RepairTree treeB = null;
    int coarseBits = leafBits - COARSE_SHIFT;
    if (coarseBits >= RepairTree.MIN_LEAF_BITS) {
      // Replicas that agree (every pair of a healthy cluster, every --repair-interval) send a 64th of a tree.
      if (!a.isRemote()) treeA = a.tree(range, leafBits);
      if (!b.isRemote()) treeB = b.tree(range, leafBits);
      RepairTree coarseA = treeA != null ? treeA.coarsened(coarseBits) : a.tree(range, coarseBits);
      RepairTree coarseB = treeB != null ? treeB.coarsened(coarseBits) : b.tree(range, coarseBits);
      bytesExchanged += treeBytes(a, coarseBits) + treeBytes(b, coarseBits);
      if (coarseA.equals(coarseB)) return new RepairReport(1, 1L << leafBits, 0, 0, bytesExchanged, 0, List.of());
    }
    if (treeA == null) treeA = a.tree(range, leafBits);
    if (treeB == null) treeB = b.tree(range, leafBits);
    bytesExchanged += treeBytes(a, leafBits) + treeBytes(b, leafBits);
    BitSet differing = treeA.differingLeaves(treeB);
    if (!differing.isEmpty()) exchange(refined(treeA, treeB, differing));
    return new RepairReport(1, treeA.leafCount(), differing.cardinality(), recordsExchanged, bytesExchanged, 0, List.of());
  }

  /**
   * The parts of the differing leaves whose digests to walk: of a leaf both sides hold records
   * in, only the sub-leaves that differ (a divergence of a few keys differs in a few of them); a
   * leaf one side holds nothing in (hash 0) whole, as all its records are to be copied anyway.
   */
  private LeafSelection refined(RepairTree treeA, RepairTree treeB, BitSet differing) {
    BitSet refine = new BitSet(1 << leafBits);
    BitSet selected = new BitSet(1 << (leafBits + subBits));
    for (int leaf = differing.nextSetBit(0); leaf >= 0; leaf = differing.nextSetBit(leaf + 1)) {
      if (subBits > 0 && treeA.leaf(leaf) != 0 && treeB.leaf(leaf) != 0) refine.set(leaf);
      else selected.set(leaf << subBits, (leaf + 1) << subBits);
    }
    if (!refine.isEmpty()) {
      SubLeaves subA = a.subLeaves(range, leafBits, subBits, refine);
      SubLeaves subB = b.subLeaves(range, leafBits, subBits, refine);
      long hashBytes = 8L * SubLeaves.hashCount(subBits, refine);
      bytesExchanged += leafBitmapBytes(a) + leafBitmapBytes(b); // the requests
      bytesExchanged += (a.isRemote() ? hashBytes : 0) + (b.isRemote() ? hashBytes : 0);
      selected.or(subA.differing(subB).subLeaves());
    }
    return new LeafSelection(leafBits, subBits, selected);
  }

  private void exchange(LeafSelection selection) {
    long selectionBytes = selection.leafBitmap().length + selection.masks().length; // a DIGESTS request's
    bytesExchanged += (a.isRemote() ? selectionBytes : 0) + (b.isRemote() ? selectionBytes : 0);
    try (EntryIterator digestsA = a.digests(range, selection);
        EntryIterator digestsB = b.digests(range, selection)) {
      Entry nextA = next(digestsA, a);
      Entry nextB = next(digestsB, b);
      while (nextA != null || nextB != null) {
        if (nextB == null || (nextA != null && Keys.compare(nextA.key(), nextB.key()) < 0)) {
          copy(a, b, Objects.requireNonNull(nextA).key()); // only a has it
          nextA = next(digestsA, a);
        } else if (nextA == null || Keys.compare(nextA.key(), nextB.key()) > 0) {
          copy(b, a, nextB.key()); // only b has it
          nextB = next(digestsB, b);
        } else {
          if (differ(nextA, nextB)) {
            if (wins(nextA, nextB)) copy(a, b, nextA.key());
            else copy(b, a, nextB.key());
          }
          nextA = next(digestsA, a);
          nextB = next(digestsB, b);
        }
      }
    }
  }

  private @Nullable Entry next(EntryIterator digests, RepairSide side) {
    if (!digests.hasNext()) return null;
    throttle.acquire();
    Entry digest = digests.next();
    if (side.isRemote()) bytesExchanged += digest.key().length + 17L; // a record frame without its value
    return digest;
  }

  /**
   * Digests carry no values: two records of equal versions that are both values are taken to be
   * the same write (a version names one write of one coordinator), unless their expiries differ.
   */
  private static boolean differ(Entry x, Entry y) {
    return x.version() != y.version() || x.isTombstone() != y.isTombstone() || x.expiresAtMillis() != y.expiresAtMillis();
  }

  /**
   * Whether {@code x} is the newer of two differing records: the higher version, else the
   * tombstone, else the later expiry (Entry.newer).
   */
  private static boolean wins(Entry x, Entry y) {
    if (x.version() != y.version()) return x.version() > y.version();
    if (x.isTombstone() != y.isTombstone()) return x.isTombstone();
    return Entry.laterExpiry(y.expiresAtMillis(), x.expiresAtMillis());
  }

  /** Copies {@code from}'s record of {@code key}, read whole now, to {@code to}. */
  private void copy(RepairSide from, RepairSide to, byte[] key) {
    throttle.acquire();
    Entry record = from.read(key);
    if (record == null) return; // gone since its digest (purged): nothing to copy
    to.write(record);
    recordsExchanged++;
    long recordBytes = key.length + 17L + (record.value() == null ? 0 : record.value().length);
    if (from.isRemote()) bytesExchanged += recordBytes;
    if (to.isRemote()) bytesExchanged += recordBytes;
  }

  private static long treeBytes(RepairSide side, int bits) {
    return side.isRemote() ? (8L << bits) : 0;
  }

  /** A sub-leaves request's leaf bitmap, sent to a remote side. */
  private long leafBitmapBytes(RepairSide side) {
    return side.isRemote() ? (1L << leafBits) / 8 : 0;
  }
}
