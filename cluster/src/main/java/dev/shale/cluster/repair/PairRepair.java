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
 * compares their trees, then walks both replicas' digests of the differing leaves side by side
 * in key order, and copies each record one side lacks or holds older to it, with its original
 * version, from the side that holds the newer. Both sides end with the newer record of every
 * key that differed: a tombstone that is newer than a value wins and is copied, so repair never
 * brings a deleted key back.
 *
 * <p>Memory is bounded whatever the range: two trees and one digest of each side at a time.
 */
final class PairRepair {
  private final RepairSide a;
  private final RepairSide b;
  private final SharedRange range;
  private final int leafBits;
  private final RepairThrottle throttle;
  private long recordsExchanged;
  private long bytesExchanged;

  PairRepair(RepairSide a, RepairSide b, SharedRange range, int leafBits, RepairThrottle throttle) {
    this.a = a;
    this.b = b;
    this.range = range;
    this.leafBits = leafBits;
    this.throttle = throttle;
  }

  RepairReport run() {
    RepairTree treeA = a.tree(range, leafBits);
    RepairTree treeB = b.tree(range, leafBits);
    bytesExchanged += treeBytes(a) + treeBytes(b);
    BitSet differing = treeA.differingLeaves(treeB);
    if (!differing.isEmpty()) exchange(differing);
    return new RepairReport(1, treeA.leafCount(), differing.cardinality(), recordsExchanged, bytesExchanged, 0, List.of());
  }

  private void exchange(BitSet differing) {
    try (EntryIterator digestsA = a.digests(range, leafBits, differing);
        EntryIterator digestsB = b.digests(range, leafBits, differing)) {
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
   * the same write (a version names one write of one coordinator).
   */
  private static boolean differ(Entry x, Entry y) {
    return x.version() != y.version() || x.isTombstone() != y.isTombstone();
  }

  /** Whether {@code x} is the newer of two differing records: the higher version, else the tombstone (Entry.newer). */
  private static boolean wins(Entry x, Entry y) {
    return x.version() != y.version() ? x.version() > y.version() : x.isTombstone();
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

  private long treeBytes(RepairSide side) {
    return side.isRemote() ? (8L << leafBits) : 0;
  }
}
