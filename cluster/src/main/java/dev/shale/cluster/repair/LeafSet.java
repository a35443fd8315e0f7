package dev.shale.cluster.repair;

import java.util.BitSet;

/**
 * The bitmap of leaves a DIGESTS request selects (docs/format.md, "Repair requests"):
 * {@code 2^leafBits / 8} bytes, leaf {@code i} bit {@code i % 8} of byte {@code i / 8}, which is
 * {@link BitSet}'s own little-endian layout.
 */
public final class LeafSet {
  private LeafSet() {}

  public static byte[] encode(BitSet leaves, int leafBits) {
    byte[] bitmap = new byte[bytes(leafBits)];
    byte[] set = leaves.toByteArray(); // without trailing zero bytes
    if (set.length > bitmap.length) throw new IllegalArgumentException("a leaf past 2^" + leafBits + ": " + leaves.length());
    System.arraycopy(set, 0, bitmap, 0, set.length);
    return bitmap;
  }

  /** @throws IllegalArgumentException unless {@code bitmap} is exactly as long as {@code leafBits} needs */
  public static BitSet decode(byte[] bitmap, int leafBits) {
    if (bitmap.length != bytes(RepairTree.checkedLeafBits(leafBits))) {
      throw new IllegalArgumentException("a bitmap of " + bitmap.length + " bytes for 2^" + leafBits + " leaves");
    }
    return BitSet.valueOf(bitmap);
  }

  /** The bytes of a bitmap of {@code 2^bits} bits: a sub-leaf mask of fewer than 8 takes a whole byte. */
  static int bytes(int bits) {
    return ((1 << bits) + 7) / 8;
  }
}
