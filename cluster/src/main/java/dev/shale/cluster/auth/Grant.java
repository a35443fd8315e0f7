package dev.shale.cluster.auth;

import dev.shale.storage.Keys;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a principal may do: its scopes, and the key prefixes its reads and writes are limited
 * to (none: every key). Immutable.
 */
public record Grant(Set<Scope> scopes, List<byte[]> prefixes) {
  /** Everything: the bootstrap admin token's grant. */
  public static final Grant ALL = new Grant(EnumSet.allOf(Scope.class), List.of());

  public Grant {
    scopes = Set.copyOf(scopes);
    prefixes = prefixes.stream().map(byte[]::clone).toList();
  }

  public boolean allows(Scope scope) {
    return scopes.contains(scope);
  }

  /** Whether the key may be read or written: it starts with one of the prefixes, or there are none. */
  public boolean coversKey(byte[] key) {
    if (prefixes.isEmpty()) return true;
    for (byte[] prefix : prefixes) {
      if (key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) return true;
    }
    return false;
  }

  /**
   * Whether every key of {@code [start, end)} (end null: unbounded) starts with one prefix: the
   * range lies between the prefix and the first key past all keys that start with it.
   */
  public boolean coversRange(byte[] start, byte @Nullable [] end) {
    if (prefixes.isEmpty()) return true;
    for (byte[] prefix : prefixes) {
      if (Keys.compare(start, prefix) < 0) continue;
      byte[] past = pastPrefix(prefix);
      if (past == null) return true; // only 0xff bytes: every key from the prefix on starts with it
      if (end != null && Keys.compare(end, past) <= 0) return true;
    }
    return false;
  }

  /** The least key greater than every key that starts with {@code prefix}; null if there is none. */
  static byte @Nullable [] pastPrefix(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if (prefix[i] != (byte) 0xff) {
        byte[] past = Arrays.copyOf(prefix, i + 1);
        past[i]++;
        return past;
      }
    }
    return null;
  }
}
