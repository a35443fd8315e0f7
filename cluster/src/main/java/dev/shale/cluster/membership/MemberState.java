package dev.shale.cluster.membership;

import java.util.Locale;

/**
 * Where a member is in its life in the cluster map. A member joins ({@code joining}: it receives
 * writes, is not read from), serves ({@code normal}), and leaves ({@code leaving}: still read
 * from and written to until its copies are handed over), then is removed from the map.
 *
 * <p>The names are part of the map's stored form (docs/format.md, "Cluster map"). Do not change.
 */
public enum MemberState {
  JOINING,
  NORMAL,
  LEAVING;

  /** The name as stored and shown: {@code joining}, {@code normal}, {@code leaving}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** @throws IllegalArgumentException naming the unknown state */
  public static MemberState ofWireName(String name) {
    for (MemberState state : values()) if (state.wireName().equals(name)) return state;
    throw new IllegalArgumentException("unknown member state '" + name + "'");
  }

  /** Whether the member is changing (joining or leaving): while one is, no other change starts. */
  public boolean inTransition() {
    return this != NORMAL;
  }
}
