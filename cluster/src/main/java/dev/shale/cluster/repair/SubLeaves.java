package dev.shale.cluster.repair;

import dev.shale.storage.Entry;
import dev.shale.cluster.Placement;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The sub-leaf hashes of some leaves of a tree (docs/format.md, "Repair requests"): for each
 * selected leaf in leaf order, the hashes of its {@code 2^subBits} sub-leaves, each the XOR of its
 * records' hashes as a leaf's is. A repair asks both replicas for them for the leaves that differ,
 * and takes digests of the sub-leaves that differ only.
 *
 * <p>Memory: {@code 8 * 2^subBits} bytes per selected leaf, at most 8 MiB (2^16 leaves of 16
 * sub-leaves), and an index of the leaves (4 bytes a leaf).
 *
 * <p>Not thread safe: built by one thread, then read.
 */
public final class SubLeaves {
  private final int leafBits;
  private final int subBits;
  private final BitSet leaves;
  private final int[] slots; // per leaf: its first hash, or -1 when not selected
  private final long[] hashes;

  private SubLeaves(int leafBits, int subBits, BitSet leaves, long[] hashes) {
    this.leafBits = RepairTree.checkedLeafBits(leafBits);
    if (LeafSelection.checkedSubBits(subBits) == 0) throw new IllegalArgumentException("sub-leaves need at least one sub-leaf bit");
    if (leaves.isEmpty() || leaves.length() > 1 << leafBits) throw new IllegalArgumentException("no leaf, or one past 2^" + leafBits);
    this.subBits = subBits;
    this.leaves = (BitSet) leaves.clone();
    this.slots = new int[1 << leafBits];
    Arrays.fill(slots, -1);
    int slot = 0;
    for (int leaf = leaves.nextSetBit(0); leaf >= 0; leaf = leaves.nextSetBit(leaf + 1), slot += 1 << subBits) slots[leaf] = slot;
    if (hashes.length != slot) throw new IllegalArgumentException(hashes.length + " sub-leaf hashes for " + leaves.cardinality() + " leaves of 2^" + subBits);
    this.hashes = hashes;
  }

  /** Empty sub-leaves of {@code leaves}, to add records to. */
  public SubLeaves(int leafBits, int subBits, BitSet leaves) {
    this(leafBits, subBits, leaves, new long[leaves.cardinality() << LeafSelection.checkedSubBits(subBits)]);
  }

  /** Sub-leaves received from a peer: {@code hashes} must hold {@code 2^subBits} per selected leaf. */
  public static SubLeaves ofHashes(int leafBits, int subBits, BitSet leaves, long[] hashes) {
    return new SubLeaves(leafBits, subBits, leaves, hashes.clone());
  }

  /** The hashes to send for {@code leaves} selected among {@code 2^leafBits}. */
  public static int hashCount(int subBits, BitSet leaves) {
    return leaves.cardinality() << subBits;
  }

  /** Adds one record, if its leaf is selected. */
  public void add(byte[] key, long version, boolean tombstone) {
    add(key, version, tombstone, Entry.NEVER);
  }

  /** {@link #add(byte[], long, boolean)} of a value expiring at {@code expiresAtMillis} (or never). */
  public void add(byte[] key, long version, boolean tombstone, long expiresAtMillis) {
    long keyHash = Placement.keyHash(key);
    int slot = slots[RepairTree.leafOf(keyHash, leafBits)];
    if (slot < 0) return;
    int subLeaf = RepairTree.leafOf(keyHash, leafBits + subBits) & ((1 << subBits) - 1);
    hashes[slot + subLeaf] ^= RepairTree.recordHash(keyHash, version, tombstone, expiresAtMillis);
  }

  /** The hashes, in the order the answer sends them; a copy. */
  public long[] hashes() {
    return hashes.clone();
  }

  /** The sub-leaves whose hashes differ from {@code other}'s (the same leaves, the same shape), as a selection. */
  public LeafSelection differing(SubLeaves other) {
    if (other.leafBits != leafBits || other.subBits != subBits || !other.leaves.equals(leaves)) {
      throw new IllegalArgumentException("sub-leaves of other leaves or another shape");
    }
    BitSet differing = new BitSet(1 << (leafBits + subBits));
    for (int leaf = leaves.nextSetBit(0); leaf >= 0; leaf = leaves.nextSetBit(leaf + 1)) {
      int slot = slots[leaf];
      for (int s = 0; s < 1 << subBits; s++) {
        if (hashes[slot + s] != other.hashes[slot + s]) differing.set((leaf << subBits) | s);
      }
    }
    return new LeafSelection(leafBits, subBits, differing);
  }
}
