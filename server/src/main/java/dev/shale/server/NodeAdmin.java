package dev.shale.server;

import dev.shale.cluster.AdminSignatures;
import dev.shale.cluster.auth.TokenAuth;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * What a node's admin routes need beyond the engine, for a node without {@code --cluster}.
 *
 * @param snapshots where {@code /v0/admin/snapshot} writes snapshots ({@code <data>/snapshots}),
 *     or null: the node takes no snapshots (404)
 * @param signatures a node without a cluster started with {@code --admin-secret-file}: admin
 *     calls must be signed with that secret, from anywhere; null: admin calls are served unsigned,
 *     to loopback clients only. A node of a cluster uses the cluster's secret instead.
 * @param tokens the node's API tokens, served under {@code /v0/admin/tokens}, and required of every
 *     client request while {@link TokenAuth#required} (docs/design.md, "API tokens"); null: the
 *     node keeps none (404) and requires none
 */
public record NodeAdmin(@Nullable Path snapshots, @Nullable AdminSignatures signatures, @Nullable TokenAuth tokens) {
  /** No snapshots, and admin calls from loopback clients only. */
  public static final NodeAdmin NONE = new NodeAdmin(null, null);

  /** Without tokens. */
  public NodeAdmin(@Nullable Path snapshots, @Nullable AdminSignatures signatures) {
    this(snapshots, signatures, null);
  }
}
