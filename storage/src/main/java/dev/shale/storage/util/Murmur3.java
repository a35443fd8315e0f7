package dev.shale.storage.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * MurmurHash3 x64 128 (Austin Appleby's public-domain MurmurHash3_x64_128), the hash behind the
 * tables' Bloom filters (docs/format.md, "Filter").
 *
 * <p>Do not change: filter bits computed from this hash are embedded in on-disk data. The result
 * equals the reference implementation's (and Guava's {@code murmur3_128}) bit for bit.
 */
public final class Murmur3 {
  /** The two 64-bit halves of a 128-bit hash: {@code h1} is the reference output's first word. */
  public record Hash128(long h1, long h2) {}

  private static final long C1 = 0x87c37b91114253d5L;
  private static final long C2 = 0x4cf5ad432745937fL;
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private Murmur3() {}

  /** The hash of all of {@code data} with {@code seed} (the tables use seed 0). */
  public static Hash128 hash128(byte[] data, long seed) {
    long h1 = seed;
    long h2 = seed;
    int blockEnd = data.length & ~15;
    for (int i = 0; i < blockEnd; i += 16) {
      h1 ^= mixK1((long) LONG_LE.get(data, i));
      h1 = Long.rotateLeft(h1, 27) + h2;
      h1 = h1 * 5 + 0x52dce729;
      h2 ^= mixK2((long) LONG_LE.get(data, i + 8));
      h2 = Long.rotateLeft(h2, 31) + h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = data.length & 15;
    if (tail > 8) h2 ^= mixK2(littleEndian(data, blockEnd + 8, tail - 8));
    if (tail > 0) h1 ^= mixK1(littleEndian(data, blockEnd, Math.min(tail, 8)));
    return finish(h1, h2, data.length);
  }

  private static Hash128 finish(long h1, long h2, int length) {
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    return new Hash128(h1, h2);
  }

  /** Up to 8 bytes from {@code from} as a little-endian long (the tail of the input). */
  private static long littleEndian(byte[] data, int from, int count) {
    long k = 0;
    for (int i = count - 1; i >= 0; i--) k = (k << 8) | (data[from + i] & 0xFFL);
    return k;
  }

  private static long mixK1(long k1) {
    return Long.rotateLeft(k1 * C1, 31) * C2;
  }

  private static long mixK2(long k2) {
    return Long.rotateLeft(k2 * C2, 33) * C1;
  }

  private static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }
}
