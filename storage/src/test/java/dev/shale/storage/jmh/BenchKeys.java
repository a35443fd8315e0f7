package dev.shale.storage.jmh;

import dev.shale.storage.Entry;
import java.util.SplittableRandom;

/**
 * Keys and values as the engine benchmark makes them (16-byte zero-padded decimal keys, as
 * db_bench; random values), so the microbenchmarks measure the shapes the engine sees there.
 */
final class BenchKeys {
  static final int KEY_BYTES = 16;

  private BenchKeys() {}

  static byte[] key(long i) {
    byte[] key = new byte[KEY_BYTES];
    long rest = i;
    for (int pos = KEY_BYTES - 1; pos >= 0; pos--) {
      key[pos] = (byte) ('0' + rest % 10);
      rest /= 10;
    }
    return key;
  }

  /** A key never written: key {@code i} followed by '.', sorting between keys i and i + 1. */
  static byte[] missingKey(long i) {
    byte[] key = new byte[KEY_BYTES + 1];
    System.arraycopy(key(i), 0, key, 0, KEY_BYTES);
    key[KEY_BYTES] = '.';
    return key;
  }

  static Entry entry(long i, int valueBytes, SplittableRandom random) {
    byte[] value = new byte[valueBytes];
    random.nextBytes(value);
    return new Entry(key(i), i + 1, value);
  }
}
