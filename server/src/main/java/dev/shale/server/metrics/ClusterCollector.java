package dev.shale.server.metrics;

import dev.shale.cluster.coordination.ReplicationStats;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The cluster's metrics: hinted handoff, read repairs and the connections to the peers, read
 * from {@link ReplicationStats} and the peer links once per scrape. A node without peers shows
 * the counters at zero and no peer connections.
 */
final class ClusterCollector implements MultiCollector {
  private final ReplicationStats stats;
  private final Supplier<Map<String, Integer>> peerConnections; // peer id -> open connections

  ClusterCollector(ReplicationStats stats, Supplier<Map<String, Integer>> peerConnections) {
    this.stats = stats;
    this.peerConnections = peerConnections;
  }

  @Override
  public MetricSnapshots collect() {
    return new Snapshots()
        .gauge("shale_hints_pending", "Hints kept for replicas that missed writes, not yet delivered", stats.hintsPending())
        .gauge("shale_hints_pending_bytes", "Bytes of the pending hints", stats.hintsPendingBytes())
        .counter("shale_hints_stored", "Writes a replica missed, kept as hints", stats.hintsStored())
        .counter("shale_hints_delivered", "Hints their replica has stored", stats.hintsDelivered())
        .counter("shale_hints_refused", "Missed writes the hint store refused (full or too old): only repair heals them",
            stats.hintsRefused())
        .counter("shale_read_repairs", "Stale replicas a read wrote the newest record to", stats.readRepairs())
        .gauge("shale_peer_connections", "Open connections to each peer (one per event loop when all are up)", "peer",
            peerConnections.get())
        .build();
  }
}
