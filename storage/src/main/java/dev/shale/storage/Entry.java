package dev.shale.storage;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One record: a key, its version, and a value or (when {@code value} is null) a tombstone. A
 * value may expire: {@code expiresAtMillis} is the wall-clock time (milliseconds since the epoch)
 * from which it reads as a tombstone of the same version, or {@link #NEVER} (0).
 *
 * <p>The arrays belong to the entry once it is made: callers must not change them. Equality
 * compares the bytes, not the array references.
 */
public record Entry(byte[] key, long version, byte @Nullable [] value, long expiresAtMillis) {
  /** The {@link #expiresAtMillis} of a record that never expires (every tombstone's). */
  public static final long NEVER = 0;

  // Written out, not compact: a compact constructor's parameters lose their @Nullable in the
  // class file, and callers in other modules would be checked against a non-null value.
  public Entry(byte[] key, long version, byte @Nullable [] value, long expiresAtMillis) {
    if (expiresAtMillis < 0) throw new IllegalArgumentException("expiresAtMillis < 0: " + expiresAtMillis);
    if (value == null && expiresAtMillis != NEVER) throw new IllegalArgumentException("a tombstone does not expire");
    this.key = key;
    this.version = version;
    this.value = value;
    this.expiresAtMillis = expiresAtMillis;
  }

  /** A record that never expires. */
  public Entry(byte[] key, long version, byte @Nullable [] value) {
    this(key, version, value, NEVER);
  }

  public static Entry tombstone(byte[] key, long version) {
    return new Entry(key, version, null);
  }

  public boolean isTombstone() {
    return value == null;
  }

  /** A value with an expiry. */
  public boolean expires() {
    return expiresAtMillis != NEVER;
  }

  /** Whether this is an expiring value whose expiry has come at wall-clock time {@code nowMillis}. */
  public boolean expiredAt(long nowMillis) {
    return expiresAtMillis != NEVER && nowMillis >= expiresAtMillis;
  }

  /**
   * The record as readers see it at wall-clock time {@code nowMillis}: an expired value reads as a
   * tombstone of its version (docs/design.md, "Expiring values"); anything else as it is.
   */
  public Entry readAt(long nowMillis) {
    return expiredAt(nowMillis) ? tombstone(key, version) : this;
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
    int byValue = Arrays.compareUnsigned(a.value, b.value);
    if (byValue != 0) return byValue > 0 ? a : b;
    return laterExpiry(a.expiresAtMillis, b.expiresAtMillis) ? b : a;
  }

  /**
   * Whether expiry {@code b} is later than {@code a}, {@link #NEVER} latest of all: the last tie
   * rule of two values of equal version and bytes (docs/format.md, "Conventions").
   */
  public static boolean laterExpiry(long a, long b) {
    return Long.compareUnsigned(a - 1, b - 1) < 0; // NEVER (0) - 1 wraps to the highest
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Entry e
        && version == e.version
        && expiresAtMillis == e.expiresAtMillis
        && Arrays.equals(key, e.key)
        && Arrays.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * (31 * Arrays.hashCode(key) + Long.hashCode(version)) + Arrays.hashCode(value))
        + Long.hashCode(expiresAtMillis);
  }

  @Override
  public String toString() {
    return "Entry[key=" + Keys.toDisplay(key) + ", version=" + version
        + (value == null ? ", tombstone]" : ", " + value.length + " bytes"
            + (expires() ? ", expires at " + expiresAtMillis + "]" : "]"));
  }
}
