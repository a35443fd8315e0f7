package dev.shale.storage;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One record: a key, its version, and a value or (when {@code value} is null) a tombstone.
 *
 * <p>The arrays belong to the entry once it is made: callers must not change them. Equality
 * compares the bytes, not the array references.
 */
public record Entry(byte[] key, long version, byte @Nullable [] value) {

  public static Entry tombstone(byte[] key, long version) {
    return new Entry(key, version, null);
  }

  public boolean isTombstone() {
    return value == null;
  }

  /**
   * Of two records of the same key, the one every reader must see (docs/format.md,
   * "Conventions"): the higher version; on equal versions a tombstone, then the greater value
   * bytes, so that every replica resolves a tie the same way whatever order writes came in.
   */
  public static Entry newer(Entry a, Entry b) {
    if (a.version != b.version) return a.version > b.version ? a : b;
    if (a.value == null) return a;
    if (b.value == null) return b;
    return Arrays.compareUnsigned(a.value, b.value) >= 0 ? a : b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Entry e
        && version == e.version
        && Arrays.equals(key, e.key)
        && Arrays.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(key) + Long.hashCode(version)) + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "Entry[key=" + Keys.toDisplay(key) + ", version=" + version
        + (value == null ? ", tombstone]" : ", " + value.length + " bytes]");
  }
}
