package dev.shale.server.metrics;

/**
 * The {@code route} label of {@code shale_http_request_duration_seconds}: which family of the API a
 * request went to. It keeps a client's reads apart from the node's own chores: a Prometheus scrape
 * ({@code GET /metrics}) or a readiness probe ({@code GET /v0/status}) is a GET too, and counted
 * with the reads they made a read latency alert fire on an idle node (issue 36).
 */
public enum RequestRoute {
  /** {@code /v0/entity}: a client's GET, PUT or DELETE of one key. */
  ENTITY("entity"),
  /** {@code /v0/entities}: a range scan, timed to its last chunk. */
  ENTITIES("entities"),
  /** {@code /v0/status}. */
  STATUS("status"),
  /** {@code /metrics}. */
  METRICS("metrics"),
  /** {@code /v0/admin/...}: an operator's call (compaction, snapshots, repair, the cluster map). */
  ADMIN("admin"),
  /** Any other path, and a request refused before its target was read (bytes that are not HTTP). */
  OTHER("other");

  private final String label;

  RequestRoute(String label) {
    this.label = label;
  }

  /** The label's value, as Prometheus shows it. */
  public String label() {
    return label;
  }
}
