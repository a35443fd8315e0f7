package dev.shale.cluster.auth;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a token may do. A set: no scope implies another (an admin token reads no keys unless it
 * also has {@code read}), as in Redis's ACL categories. The words are embedded in stored data
 * (docs/format.md, "API tokens"): do not change them.
 */
public enum Scope {
  /** GET of an entity, range scans. */
  READ,
  /** PUT and DELETE of an entity. */
  WRITE,
  /** Everything under {@code /v0/admin}. */
  ADMIN,
  /** {@code GET /metrics}. */
  METRICS;

  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code read,write}: sorted by declaration, no repeats. */
  public static String words(Set<Scope> scopes) {
    return scopes.stream().sorted().map(Scope::word).collect(Collectors.joining(","));
  }

  /**
   * The scopes of a comma-separated list such as {@code read,write}.
   *
   * @throws IllegalArgumentException naming an unknown scope, or for an empty list
   */
  public static Set<Scope> parse(String list) {
    EnumSet<Scope> scopes = EnumSet.noneOf(Scope.class);
    for (String word : list.split(",", -1)) {
      String w = word.strip();
      Scope found = null;
      for (Scope s : values()) if (s.word().equals(w)) found = s;
      if (found == null) throw new IllegalArgumentException("unknown scope '" + w + "': the scopes are read, write, admin, metrics");
      scopes.add(found);
    }
    if (scopes.isEmpty()) throw new IllegalArgumentException("a token needs at least one scope");
    return scopes;
  }
}
