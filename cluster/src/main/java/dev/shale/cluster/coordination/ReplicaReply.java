package dev.shale.cluster.coordination;

import dev.shale.storage.Entry;
import org.jspecify.annotations.Nullable;

/** What one replica answered a coordinator, or why it did not. */
public sealed interface ReplicaReply {

  /** The replica stored the write. */
  record Stored() implements ReplicaReply {
    public static final Stored INSTANCE = new Stored();
  }

  /** The replica's newest record of the key: a value, a tombstone, or null when it has none. */
  record Read(@Nullable Entry entry) implements ReplicaReply {}

  /** No answer, or one that says the replica failed; {@code reason} names the replica. */
  record Failed(String reason) implements ReplicaReply {}

  /**
   * The replica refused a write whose version is beyond the version-skew bound of its clock, its
   * clock being within the cluster's (docs/design.md, "Clock offsets"): it never will store the
   * write, so no hint of it is kept. {@code reason} names the replica.
   */
  record TooFarAhead(String reason) implements ReplicaReply {}
}
