package dev.shale.cluster.repair;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The parts of a tree whose records a DIGESTS request selects (docs/format.md, "Repair
 * requests"): sub-leaves of {@code 2^subBits} per leaf, named by the top {@code leafBits + subBits}
 * bits of a key's hash; with {@code subBits} 0, whole leaves. On the wire: the bitmap of the leaves
 * that have a selected sub-leaf ({@link LeafSet}), then one mask of sub-leaves per selected leaf.
 *
 * @param subLeaves the selected sub-leaves, by index {@code leaf * 2^subBits + subLeaf}
 */
public record LeafSelection(int leafBits, int subBits, BitSet subLeaves) {
  /** Most sub-leaf bits a request may ask for (docs/format.md). */
  public static final int MAX_SUB_BITS = 4;

  public LeafSelection {
    RepairTree.checkedLeafBits(leafBits);
    checkedSubBits(subBits);
    if (subLeaves.length() > 1 << (leafBits + subBits)) {
      throw new IllegalArgumentException("a sub-leaf past 2^" + (leafBits + subBits) + ": " + (subLeaves.length() - 1));
    }
    subLeaves = (BitSet) subLeaves.clone();
  }

  /** The selected sub-leaves, a copy. */
  @Override
  public BitSet subLeaves() {
    return (BitSet) subLeaves.clone();
  }

  /** Whole leaves: sub-leaves none. */
  public static LeafSelection leaves(int leafBits, BitSet leaves) {
    return new LeafSelection(leafBits, 0, leaves);
  }

  public static int checkedSubBits(int subBits) {
    if (subBits < 0 || subBits > MAX_SUB_BITS) throw new IllegalArgumentException("sub-leaf bits must be in [0, " + MAX_SUB_BITS + "]: " + subBits);
    return subBits;
  }

  /** The bits of a key's hash that name its sub-leaf, leaf bits included. */
  public int indexBits() {
    return leafBits + subBits;
  }

  /** The bitmap of the leaves with a selected sub-leaf. */
  public byte[] leafBitmap() {
    BitSet leaves = new BitSet(1 << leafBits);
    for (int s = subLeaves.nextSetBit(0); s >= 0; s = subLeaves.nextSetBit(s + 1)) leaves.set(s >>> subBits);
    return LeafSet.encode(leaves, leafBits);
  }

  /** Each selected leaf's mask of sub-leaves, in leaf order; empty with {@code subBits} 0. */
  public byte[] masks() {
    if (subBits == 0) return new byte[0];
    ByteArrayOutputStream masks = new ByteArrayOutputStream();
    int perLeaf = 1 << subBits;
    for (int s = subLeaves.nextSetBit(0); s >= 0; ) {
      int leaf = s >>> subBits;
      byte[] mask = LeafSet.encode(subLeaves.get(leaf * perLeaf, (leaf + 1) * perLeaf), subBits);
      masks.writeBytes(mask);
      s = subLeaves.nextSetBit((leaf + 1) * perLeaf);
    }
    return masks.toByteArray();
  }

  /**
   * A selection as a request gives it.
   *
   * @throws IllegalArgumentException with a one-line reason: bits out of range, a bitmap of
   *     another length, masks that do not match the selected leaves one for one, an empty mask
   */
  public static LeafSelection decode(int leafBits, int subBits, byte[] leafBitmap, byte[] masks) {
    BitSet leaves = LeafSet.decode(leafBitmap, leafBits);
    if (checkedSubBits(subBits) == 0) {
      if (masks.length != 0) throw new IllegalArgumentException(masks.length + " bytes of masks with no sub-leaf bits");
      return leaves(leafBits, leaves);
    }
    int maskBytes = LeafSet.bytes(subBits);
    if (masks.length != leaves.cardinality() * maskBytes) {
      throw new IllegalArgumentException(masks.length + " bytes of masks for " + leaves.cardinality() + " leaves of " + maskBytes + " bytes each");
    }
    BitSet subLeaves = new BitSet(1 << (leafBits + subBits));
    int offset = 0;
    for (int leaf = leaves.nextSetBit(0); leaf >= 0; leaf = leaves.nextSetBit(leaf + 1), offset += maskBytes) {
      BitSet mask = BitSet.valueOf(Arrays.copyOfRange(masks, offset, offset + maskBytes));
      if (mask.isEmpty() || mask.length() > 1 << subBits) {
        throw new IllegalArgumentException("leaf " + leaf + "'s mask selects no sub-leaf or one past 2^" + subBits);
      }
      for (int s = mask.nextSetBit(0); s >= 0; s = mask.nextSetBit(s + 1)) subLeaves.set((leaf << subBits) | s);
    }
    return new LeafSelection(leafBits, subBits, subLeaves);
  }
}
