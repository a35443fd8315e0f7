package dev.shale.cluster;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A write that a coordinator could not deliver to one replica, kept to be delivered later with
 * its original version.
 *
 * <p>The arrays belong to the hint once it is made: callers must not change them. Equality
 * compares the bytes, not the array references.
 *
 * @param target the replica the write is for
 * @param key the original key (1 byte or more)
 * @param value the original value, or null for a tombstone (a DELETE)
 * @param version the original write's version ({@link dev.shale.storage.Versions})
 * @param expiresAtMillis the original value's expiry, or {@link Entry#NEVER}
 */
public record Hint(NodeAddress target, byte[] key, byte @Nullable [] value, long version, long expiresAtMillis) {

  /** A hint of a write that never expires. */
  public Hint(NodeAddress target, byte[] key, byte @Nullable [] value, long version) {
    this(target, key, value, version, Entry.NEVER);
  }

  public Hint {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(key, "key");
    if (key.length == 0) throw new IllegalArgumentException("a hint's key must not be empty");
    if (version < 0) throw new IllegalArgumentException("a hint's version must be >= 0: " + version);
    if (expiresAtMillis < 0 || (value == null && expiresAtMillis != Entry.NEVER)) {
      throw new IllegalArgumentException("a hint's expiry must be >= 0, and a tombstone has none: " + expiresAtMillis);
    }
  }

  public boolean isTombstone() {
    return value == null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Hint h
        && version == h.version
        && expiresAtMillis == h.expiresAtMillis
        && target.equals(h.target)
        && Arrays.equals(key, h.key)
        && Arrays.equals(value, h.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(target, Arrays.hashCode(key), Arrays.hashCode(value), version, expiresAtMillis);
  }

  @Override
  public String toString() {
    return "Hint[target=" + target.id() + ", key=" + Keys.toDisplay(key) + ", version=" + version
        + (value == null ? ", tombstone]" : ", " + value.length + " bytes]");
  }
}
