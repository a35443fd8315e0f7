package dev.shale.server.metrics;

import dev.shale.cluster.NodeAddress;
import dev.shale.server.peer.PeerCallTimer;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Locale;

/**
 * {@code shale_peer_request_duration_seconds}: requests this node sent to other replicas (replica
 * reads and writes, hint deliveries, read repairs), from sent to answered or failed, by
 * {@code peer} (its id) and {@code outcome} ({@link PeerCallTimer.Outcome}, in lower case). Each
 * peer's timer holds its children, one per outcome, so a request does no label lookup.
 */
final class PeerRequestMetrics {
  static final String NAME = "shale_peer_request_duration_seconds";

  private final Histogram histogram;

  private PeerRequestMetrics(Histogram histogram) {
    this.histogram = histogram;
  }

  static PeerRequestMetrics register(PrometheusRegistry registry) {
    return new PeerRequestMetrics(Histogram.builder()
        .name(NAME)
        .help("Requests to other replicas, from sent to answered or failed")
        .labelNames("peer", "outcome")
        .classicOnly()
        .classicUpperBounds(Buckets.REQUEST_SECONDS)
        .withoutExemplars()
        .register(registry));
  }

  /** The timer of the requests to {@code peer}. */
  PeerCallTimer timerOf(NodeAddress peer) {
    PeerCallTimer.Outcome[] outcomes = PeerCallTimer.Outcome.values();
    DistributionDataPoint[] children = new DistributionDataPoint[outcomes.length];
    for (PeerCallTimer.Outcome outcome : outcomes) {
      children[outcome.ordinal()] = histogram.labelValues(peer.id(), outcome.name().toLowerCase(Locale.ROOT));
    }
    return (outcome, nanos) -> children[outcome.ordinal()].observe(Buckets.seconds(nanos));
  }
}
