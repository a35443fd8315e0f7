package dev.shale.cluster.repair;

import dev.shale.storage.Entry;
import dev.shale.cluster.Placement;
import java.util.Arrays;
import java.util.BitSet;

/**
 * A hash tree over one node's records of a {@link SharedRange} (docs/format.md, "Repair
 * requests"): {@code 2^leafBits} leaves, a key's leaf the top bits of its placement hash, a
 * leaf's hash the XOR of its records' hashes ({@link #recordHash}). Two replicas whose trees
 * are equal hold the same records (key, version, tombstone or not) with high probability; the
 * leaves that differ name the parts of the hash space where their records differ.
 *
 * <p>Only the leaves are kept: the exchange sends them all at once (docs/design.md,
 * "Anti-entropy repair"), and the root is computed from them when asked. XOR makes a leaf
 * independent of the order records are added in, so a tree is built in one pass over a scan.
 *
 * <p>Not thread safe: built by one thread, then read.
 */
public final class RepairTree {
  /** Fewest and most leaf bits a request may ask for (docs/format.md). */
  public static final int MIN_LEAF_BITS = 3;
  public static final int MAX_LEAF_BITS = 16;
  /** Mixed into a tombstone's hash. Do not change: it is part of the protocol. */
  private static final long TOMBSTONE_MARK = 0x9E3779B97F4A7C15L;
  /** Mixed into an expiring value's expiry. Do not change: it is part of the protocol. */
  private static final long EXPIRY_MARK = 0xC2B2AE3D27D4EB4FL;

  private final int leafBits;
  private final long[] leaves;

  public RepairTree(int leafBits) {
    this(leafBits, new long[1 << checkedLeafBits(leafBits)]);
  }

  private RepairTree(int leafBits, long[] leaves) {
    this.leafBits = leafBits;
    this.leaves = leaves;
  }

  /** A tree received from a peer: {@code leaves.length} must be {@code 2^leafBits}. */
  public static RepairTree ofLeaves(int leafBits, long[] leaves) {
    if (leaves.length != 1 << checkedLeafBits(leafBits)) {
      throw new IllegalArgumentException(leaves.length + " leaves for a tree of 2^" + leafBits);
    }
    return new RepairTree(leafBits, leaves.clone());
  }

  public static int checkedLeafBits(int leafBits) {
    if (leafBits < MIN_LEAF_BITS || leafBits > MAX_LEAF_BITS) {
      throw new IllegalArgumentException("leaf bits must be in [" + MIN_LEAF_BITS + ", " + MAX_LEAF_BITS + "]: " + leafBits);
    }
    return leafBits;
  }

  /** Adds one record (its key's winning record on this node) to its leaf. */
  public void add(byte[] key, long version, boolean tombstone) {
    add(key, version, tombstone, Entry.NEVER);
  }

  /** {@link #add(byte[], long, boolean)} of a value expiring at {@code expiresAtMillis} (or never). */
  public void add(byte[] key, long version, boolean tombstone, long expiresAtMillis) {
    long keyHash = Placement.keyHash(key);
    leaves[leafOf(keyHash, leafBits)] ^= recordHash(keyHash, version, tombstone, expiresAtMillis);
  }

  /** The leaf of a key whose placement hash is {@code keyHash}: its top {@code leafBits} bits. */
  public static int leafOf(long keyHash, int leafBits) {
    return (int) (keyHash >>> (64 - leafBits));
  }

  /** The leaf of {@code key}. */
  public static int leafOf(byte[] key, int leafBits) {
    return leafOf(Placement.keyHash(key), leafBits);
  }

  /** A record's hash (docs/format.md): the tombstone mark inside the mix, so marks never cancel. */
  static long recordHash(long keyHash, long version, boolean tombstone) {
    return recordHash(keyHash, version, tombstone, Entry.NEVER);
  }

  /**
   * A record's hash with its expiry: replicas that hold one write with different expiries differ.
   * A record that never expires hashes as before expiries existed.
   */
  static long recordHash(long keyHash, long version, boolean tombstone, long expiresAtMillis) {
    long expiry = expiresAtMillis == Entry.NEVER ? 0 : fmix64(expiresAtMillis ^ EXPIRY_MARK);
    return fmix64(keyHash ^ fmix64(version) ^ (tombstone ? TOMBSTONE_MARK : 0) ^ expiry);
  }

  /** MurmurHash3's 64-bit finalizer: every input bit flips about half the output bits. */
  static long fmix64(long h) {
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB93FE53B5A1BL;
    h ^= h >>> 33;
    return h;
  }

  public int leafBits() {
    return leafBits;
  }

  public int leafCount() {
    return leaves.length;
  }

  public long leaf(int index) {
    return leaves[index];
  }

  /** The leaves, a copy. */
  public long[] leaves() {
    return leaves.clone();
  }

  /**
   * The root of the binary hash tree over the leaves: each inner node mixes its two children,
   * so equal roots mean equal leaves (with high probability) and any leaf's change changes it.
   */
  public long root() {
    long[] level = leaves.clone();
    for (int width = level.length; width > 1; width /= 2) {
      for (int i = 0; i < width / 2; i++) level[i] = fmix64(level[2 * i] ^ Long.rotateLeft(level[2 * i + 1], 29));
    }
    return level[0];
  }

  /**
   * This tree with {@code 2^bits} leaves, fewer: a leaf's hash is the XOR of its records', so a
   * coarse leaf's is the XOR of the leaves it covers, and equals the tree a replica would build
   * at {@code bits} from its records.
   */
  public RepairTree coarsened(int bits) {
    if (checkedLeafBits(bits) > leafBits) throw new IllegalArgumentException("2^" + bits + " leaves are not fewer than 2^" + leafBits);
    long[] coarse = new long[1 << bits];
    for (int i = 0; i < leaves.length; i++) coarse[i >>> (leafBits - bits)] ^= leaves[i];
    return new RepairTree(bits, coarse);
  }

  /** The leaves whose hashes differ from {@code other}'s, a tree of the same shape. */
  public BitSet differingLeaves(RepairTree other) {
    if (other.leafBits != leafBits) throw new IllegalArgumentException("trees of 2^" + leafBits + " and 2^" + other.leafBits + " leaves");
    BitSet differing = new BitSet(leaves.length);
    for (int i = 0; i < leaves.length; i++) {
      if (leaves[i] != other.leaves[i]) differing.set(i);
    }
    return differing;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RepairTree t && t.leafBits == leafBits && Arrays.equals(t.leaves, leaves);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(leaves);
  }
}
