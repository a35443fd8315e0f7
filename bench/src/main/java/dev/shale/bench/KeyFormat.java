package dev.shale.bench;

/**
 * Keys as db_bench makes them: key {@code i} is {@code i} in 16 zero-padded decimal digits, so
 * that key order is numeric order. An absent key is an existing key followed by {@code '.'}: it
 * sorts right after it, inside the key space, so a read of it cannot be answered from a table's
 * key range alone (db_bench's readmissing does the same).
 */
final class KeyFormat {
  static final int KEY_BYTES = 16;
  static final long MAX_KEYS = 9_999_999_999_999_999L;

  private KeyFormat() {}

  /** A new array holding key {@code i} (0 <= i <= MAX_KEYS). */
  static byte[] key(long i) {
    byte[] key = new byte[KEY_BYTES];
    writeDigits(key, i);
    return key;
  }

  /** A new array holding a key that is never written: key {@code i} followed by '.'. */
  static byte[] missingKey(long i) {
    byte[] key = new byte[KEY_BYTES + 1];
    writeDigits(key, i);
    key[KEY_BYTES] = '.';
    return key;
  }

  /** The number a key of {@link #key} holds; -1 if {@code key} is not one. */
  static long index(byte[] key) {
    if (key.length != KEY_BYTES) return -1;
    long i = 0;
    for (byte b : key) {
      if (b < '0' || b > '9') return -1;
      i = i * 10 + (b - '0');
    }
    return i;
  }

  private static void writeDigits(byte[] key, long i) {
    if (i < 0 || i > MAX_KEYS) throw new IllegalArgumentException("key index out of range: " + i);
    long rest = i;
    for (int pos = KEY_BYTES - 1; pos >= 0; pos--) {
      key[pos] = (byte) ('0' + rest % 10);
      rest /= 10;
    }
  }
}
