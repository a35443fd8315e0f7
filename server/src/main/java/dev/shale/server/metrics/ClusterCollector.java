package dev.shale.server.metrics;

import dev.shale.cluster.ClockOffsets;
import dev.shale.cluster.coordination.ReplicationStats;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The cluster's metrics: hinted handoff, read repairs, anti-entropy repairs, the connections to
 * the peers and the clock offsets, read from {@link ReplicationStats}, the repair runner, the peer
 * links and {@link ClockOffsets} once per scrape. A node without peers shows the counters at zero,
 * no peer connections or offsets, and is never fenced.
 */
final class ClusterCollector implements MultiCollector {
  private final ReplicationStats stats;
  private final Supplier<Map<String, Integer>> peerConnections; // peer id -> open connections
  private final NodeMetrics.RepairCounts repairs;
  private final @Nullable ClockOffsets clock; // null without peers

  ClusterCollector(ReplicationStats stats, Supplier<Map<String, Integer>> peerConnections, NodeMetrics.RepairCounts repairs,
      @Nullable ClockOffsets clock) {
    this.stats = stats;
    this.peerConnections = peerConnections;
    this.repairs = repairs;
    this.clock = clock;
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
        .counter("shale_hints_dropped_too_far_ahead", "Writes and hints a replica refused as beyond the version-skew bound, not kept",
            stats.hintsDroppedTooFarAhead())
        .counter("shale_read_repairs", "Stale replicas a read wrote the newest record to", stats.readRepairs())
        .counter("shale_repair_runs", "Anti-entropy repairs of every replica pair this node ran to their end", repairs.runs())
        .counter("shale_repair_records_exchanged", "Records those repairs copied between replicas", repairs.recordsExchanged())
        .gauge("shale_clock_fenced", "1 while this node's clock is off from a majority of the members: it serves no client", 
            clock != null && clock.fence() != null ? 1 : 0)
        .gauge("shale_clock_offset_seconds", "Each peer's clock minus this node's, as last measured and carried forward", "peer",
            offsetSeconds())
        .gauge("shale_peer_connections", "Open connections to each peer (one per event loop when all are up)", "peer",
            peerConnections.get())
        .build();
  }

  private Map<String, Double> offsetSeconds() {
    Map<String, Double> seconds = new TreeMap<>();
    if (clock != null) clock.offsetsMillis().forEach((peer, millis) -> seconds.put(peer, millis / 1000.0));
    return seconds;
  }
}
