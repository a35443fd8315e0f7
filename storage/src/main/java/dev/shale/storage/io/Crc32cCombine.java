package dev.shale.storage.io;

/**
 * The crc32c of a stretch of bytes from the crcs of two prefixes, without reading the stretch
 * again. For bytes A followed by B: {@code crc(AB) = crc(A)·x^(8|B|) xor crc(B)}, the product
 * taken modulo the Castagnoli polynomial (the identity zlib's {@code crc32_combine} rests on), so
 * {@code crc(B) = crc(AB) xor crc(A)·x^(8|B|)}. Resynchronising ({@link FrameScan}) checks many
 * overlapping candidate frames in one pass over a file this way: O(log |B|) per frame instead of
 * reading its |B| bytes again.
 *
 * <p>Polynomials are in the bit order {@link java.util.zip.CRC32C} computes in (reflected): the
 * coefficient of x^0 is bit 31, that of x^31 bit 0.
 */
final class Crc32cCombine {
  /** The Castagnoli polynomial 0x1EDC6F41 without its x^32 term, reflected. */
  private static final int POLYNOMIAL = 0x82F63B78;
  /** x^0 = 1, reflected. */
  private static final int ONE = 1 << 31;
  /** X_TO_2_TO_THE[k] = x^(2^k) mod P: enough powers for any length below 2^63 bytes (8 * 2^63 bits). */
  private static final int[] X_TO_2_TO_THE = new int[67];

  static {
    int power = ONE >>> 1; // x^1
    for (int k = 0; k < X_TO_2_TO_THE.length; k++) {
      X_TO_2_TO_THE[k] = power;
      power = multiply(power, power);
    }
  }

  private Crc32cCombine() {}

  /** crc(B) for the {@code lengthOfB} bytes B that follow A, from crc(A) and crc(AB). */
  static int ofSuffix(int crcOfA, int crcOfAB, long lengthOfB) {
    return crcOfAB ^ shift(crcOfA, lengthOfB);
  }

  /** crc(AB) from crc(A), crc(B) and B's length (zlib's {@code crc32_combine}). */
  static int combine(int crcOfA, int crcOfB, long lengthOfB) {
    return shift(crcOfA, lengthOfB) ^ crcOfB;
  }

  /** {@code crc}·x^(8·bytes) mod P: O(log bytes) multiplications. */
  static int shift(int crc, long bytes) {
    if (bytes < 0) throw new IllegalArgumentException("negative length " + bytes);
    int factor = ONE;
    // bytes = sum of 2^i over its set bits i, so x^(8·bytes) = product of x^(2^(i+3)).
    for (int k = 3; bytes != 0; bytes >>>= 1, k++) {
      if ((bytes & 1) != 0) factor = multiply(X_TO_2_TO_THE[k], factor);
    }
    return multiply(factor, crc);
  }

  /** a·b mod P (zlib's {@code multmodp}): b times each power of x present in a, summed. */
  static int multiply(int a, int b) {
    int product = 0;
    for (int bit = 31; bit >= 0; bit--) { // bit 31 holds x^0
      if (((a >>> bit) & 1) != 0) product ^= b;
      b = (b & 1) != 0 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1; // b·x mod P
    }
    return product;
  }
}
