package dev.shale.cluster;

/**
 * The headers of the internal replica protocol: the requests a coordinator sends to the replicas
 * of a key, and their answers (docs/design.md, "Replication"). Every such request also carries
 * {@link InternalAuth#HEADER} and {@link InternalAuth#CLUSTER_HEADER}, and is served by the
 * receiver from its own store, never coordinated again.
 *
 * <ul>
 *   <li>Write: {@code PUT /v0/entity?id=<id>} with the value as body, or {@code DELETE} for a
 *       tombstone, with {@link #VERSION_HEADER}; the replica stores the record with that version
 *       (a record that is not newer than the stored one loses every read, as the version rules
 *       say) and answers 201 or 202.
 *   <li>Read: {@code GET /v0/entity?id=<id>}; the replica answers 200 with the value and
 *       {@link #VERSION_HEADER}; 404 with {@link #VERSION_HEADER} and {@link #TOMBSTONE_HEADER}
 *       when its newest record is a tombstone; 404 with neither when it has nothing.
 * </ul>
 *
 * <p>Do not change the names: nodes of different builds must understand each other.
 */
public final class ReplicaProtocol {
  /** A record's version ({@code dev.shale.storage.Versions}), in decimal. */
  public static final String VERSION_HEADER = "X-Shale-Version";
  /** On a 404 with a version: the replica's newest record is a tombstone. */
  public static final String TOMBSTONE_HEADER = "X-Shale-Tombstone";
  /** The value of {@link #TOMBSTONE_HEADER}. */
  public static final String TOMBSTONE = "true";

  private ReplicaProtocol() {}

  /**
   * The version that {@link #VERSION_HEADER} carries.
   *
   * @throws IllegalArgumentException unless {@code text} is a non-negative decimal long
   */
  public static long parseVersion(String text) {
    if (text == null || text.isEmpty() || text.length() > 19 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(VERSION_HEADER + " must be a non-negative decimal integer: '" + text + "'");
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(VERSION_HEADER + " is out of range: '" + text + "'");
    }
  }
}
