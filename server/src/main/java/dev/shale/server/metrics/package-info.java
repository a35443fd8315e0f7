/**
 * The node's Prometheus metrics ({@code GET /metrics}; docs/operations.md, "Metrics"), through
 * the Prometheus Java client: the request histograms recorded on the hot path
 * ({@link dev.shale.server.metrics.HttpRequestMetrics}, {@link dev.shale.server.metrics.PeerRequestMetrics}),
 * and collectors that read the engine's and the cluster's counters at scrape time
 * ({@link dev.shale.server.metrics.EngineCollector}, {@link dev.shale.server.metrics.ClusterCollector}),
 * so that those cost nothing between scrapes. {@link dev.shale.server.metrics.NodeMetrics} holds
 * them and writes the text format.
 *
 * <p>The engine and the cluster module know nothing of Prometheus: they count in their own
 * stats ({@code EngineStats}, {@code ReplicationStats}), which this package reads.
 */
package dev.shale.server.metrics;
