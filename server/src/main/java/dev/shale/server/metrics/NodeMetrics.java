package dev.shale.server.metrics;

import dev.shale.cluster.ClockOffsets;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.coordination.ReplicationStats;
import dev.shale.server.MemoryReads;
import dev.shale.server.ScanViews;
import dev.shale.server.http.AnswerBudget;
import dev.shale.server.peer.PeerCallTimer;
import dev.shale.storage.Engine;
import dev.shale.storage.Env;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One node's metrics: a registry of its own (not the client's global one, so that several
 * servers in one JVM, as in tests, each show their own) holding the request histograms, the
 * engine's and the cluster's collectors and the client's JVM metrics; and their exposition in
 * the Prometheus text format, for {@code GET /metrics}.
 *
 * <p>{@link #OFF} (a node started with {@code --metrics=false}) records nothing and has nothing
 * to show. Thread safe.
 */
public final class NodeMetrics {
  /** The media type of the text format, version 0.0.4: what {@code GET /metrics} answers with. */
  public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

  /** Metrics off: requests are not timed and {@code /metrics} has nothing to show. */
  public static final NodeMetrics OFF = new NodeMetrics(null, HttpRequestMetrics.OFF, null);

  private final @Nullable PrometheusRegistry registry;
  private final HttpRequestMetrics http;
  private final @Nullable PeerRequestMetrics peers;
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  private NodeMetrics(@Nullable PrometheusRegistry registry, HttpRequestMetrics http, @Nullable PeerRequestMetrics peers) {
    this.registry = registry;
    this.http = http;
    this.peers = peers;
  }

  /**
   * Metrics on, for a node serving {@code engine}, timing requests on {@code env}'s clock; the
   * cluster's come with {@link #watchCluster}.
   */
  public static NodeMetrics on(Engine engine, Env env) {
    PrometheusRegistry registry = new PrometheusRegistry();
    HttpRequestMetrics http = HttpRequestMetrics.register(registry, env::nanoTime);
    PeerRequestMetrics peers = PeerRequestMetrics.register(registry);
    registry.register(new EngineCollector(engine));
    JvmMetrics.builder().register(registry);
    return new NodeMetrics(registry, http, peers);
  }

  /** The node's memory budget ({@code --memory}, 0: none), its answers and its scans' read views, from now on. */
  public void watchMemory(long budgetBytes, AnswerBudget answers, ScanViews scanViews) {
    if (registry != null) registry.register(new MemoryCollector(budgetBytes, answers, scanViews));
  }

  /** How the node's reads tried from memory fared, from now on. */
  public void watchMemoryReads(MemoryReads reads) {
    if (registry != null) registry.register(new MemoryReadCollector(reads));
  }

  /**
   * Adds the cluster's metrics: {@code stats}' counters, the open connections per peer
   * ({@code peerConnections}, by peer id; empty without peers), the anti-entropy repairs
   * ({@code repairs}; zero without peers), and the clock's offsets and fence ({@code clock}; null
   * without peers).
   */
  public void watchCluster(ReplicationStats stats, Supplier<Map<String, Integer>> peerConnections, RepairCounts repairs,
      @Nullable ClockOffsets clock) {
    if (registry != null) registry.register(new ClusterCollector(stats, peerConnections, repairs, clock));
  }

  /** This node's anti-entropy repairs so far: the runs that ended, and the records they copied. */
  public interface RepairCounts {
    RepairCounts NONE = new RepairCounts() {
      @Override
      public long runs() {
        return 0;
      }

      @Override
      public long recordsExchanged() {
        return 0;
      }
    };

    long runs();

    long recordsExchanged();
  }

  public boolean isOn() {
    return registry != null;
  }

  /** The histogram of client requests, which the HTTP front end records into. */
  public HttpRequestMetrics http() {
    return http;
  }

  /** The timer of the requests to each peer, for the peer links. */
  public Function<NodeAddress, PeerCallTimer> peerTimers() {
    PeerRequestMetrics p = peers;
    return p == null ? peer -> PeerCallTimer.NONE : p::timerOf;
  }

  /**
   * Every metric now, in the text format ({@link #CONTENT_TYPE}); reads the engine's and the
   * cluster's counters.
   *
   * @throws IllegalStateException if metrics are off
   */
  public byte[] scrape() {
    PrometheusRegistry r = registry;
    if (r == null) throw new IllegalStateException("metrics are off");
    ByteArrayOutputStream out = new ByteArrayOutputStream(32 << 10);
    try {
      writer.write(out, r.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
    }
    return out.toByteArray();
  }
}
