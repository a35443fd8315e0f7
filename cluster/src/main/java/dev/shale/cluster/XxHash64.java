package dev.shale.cluster;

/**
 * XXH64 (Yann Collet's xxHash, 64-bit variant) of a byte array: fast, and well distributed in
 * every bit, which rendezvous weights need. Matches the reference implementation bit for bit
 * (tested against its published values), so the placement of a key is a fixed function that
 * other tools can recompute.
 *
 * <p>Placement depends on these values: changing them moves keys between nodes. Do not change.
 */
final class XxHash64 {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private XxHash64() {}

  static long hash(byte[] data, long seed) {
    int length = data.length;
    int at = 0;
    long h;
    if (length >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      int limit = length - 32;
      do {
        v1 = round(v1, longAt(data, at));
        v2 = round(v2, longAt(data, at + 8));
        v3 = round(v3, longAt(data, at + 16));
        v4 = round(v4, longAt(data, at + 24));
        at += 32;
      } while (at <= limit);
      h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
      h = mergeRound(h, v1);
      h = mergeRound(h, v2);
      h = mergeRound(h, v3);
      h = mergeRound(h, v4);
    } else {
      h = seed + P5;
    }
    h += length;
    for (; at + 8 <= length; at += 8) {
      h ^= round(0, longAt(data, at));
      h = Long.rotateLeft(h, 27) * P1 + P4;
    }
    if (at + 4 <= length) {
      h ^= (intAt(data, at) & 0xFFFFFFFFL) * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      at += 4;
    }
    for (; at < length; at++) {
      h ^= (data[at] & 0xFFL) * P5;
      h = Long.rotateLeft(h, 11) * P1;
    }
    return avalanche(h);
  }

  /** The final mix of XXH64: spreads every input bit over the whole word. */
  static long avalanche(long h) {
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  private static long round(long acc, long input) {
    acc += input * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long mergeRound(long acc, long v) {
    acc ^= round(0, v);
    return acc * P1 + P4;
  }

  private static long longAt(byte[] b, int i) {
    return (b[i] & 0xFFL)
        | (b[i + 1] & 0xFFL) << 8
        | (b[i + 2] & 0xFFL) << 16
        | (b[i + 3] & 0xFFL) << 24
        | (b[i + 4] & 0xFFL) << 32
        | (b[i + 5] & 0xFFL) << 40
        | (b[i + 6] & 0xFFL) << 48
        | (b[i + 7] & 0xFFL) << 56;
  }

  private static int intAt(byte[] b, int i) {
    return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
  }
}
