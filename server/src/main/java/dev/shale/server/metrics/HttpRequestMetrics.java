package dev.shale.server.metrics;

import io.netty.handler.codec.http.HttpMethod;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * {@code shale_http_request_duration_seconds}: the time from a client's request head decoded to
 * its answer handed to the connection, by {@code method}, {@code route} ({@link RequestRoute})
 * and {@code status}. Recorded once per request, on the event loops: the labelled child of each
 * (method, route, status) is looked up by array indexes, not by label strings, and made once, the
 * first time that triple is seen. An observation then costs a binary search over the buckets and
 * two adds, and allocates nothing.
 *
 * <p>Thread safe.
 */
public final class HttpRequestMetrics {
  static final String NAME = "shale_http_request_duration_seconds";

  // The methods the API has, in METHODS' order; any other is "other".
  private static final String[] METHODS = {"GET", "PUT", "DELETE", "POST", "HEAD", "other"};
  private static final int OTHER = METHODS.length - 1;
  private static final int MIN_STATUS = 100;
  private static final int STATUSES = 500; // 100..599 (statusIndex)
  private static final RequestRoute[] ROUTES = RequestRoute.values();

  // After the constants above: the constructor uses them.
  /** Records nothing: a node started with {@code --metrics=false}. */
  public static final HttpRequestMetrics OFF = new HttpRequestMetrics(null, () -> 0);


  private final @Nullable Histogram histogram;
  private final LongSupplier nanoTime; // the Env's monotonic clock, which startNanos came from too
  // [(method * ROUTES + route) * STATUSES + status - MIN_STATUS]: the child, null until first
  // used (36 * 500 references: 72 KiB a node). Made under a benign race: two threads may both ask
  // the histogram, which returns the same child to both.
  private final AtomicReferenceArray<DistributionDataPoint> children =
      new AtomicReferenceArray<>(METHODS.length * ROUTES.length * STATUSES);

  private HttpRequestMetrics(@Nullable Histogram histogram, LongSupplier nanoTime) {
    this.histogram = histogram;
    this.nanoTime = nanoTime;
  }

  /** Registered in {@code registry}, timing requests with {@code nanoTime} (the node's Env's). */
  static HttpRequestMetrics register(PrometheusRegistry registry, LongSupplier nanoTime) {
    Histogram histogram = Histogram.builder()
        .name(NAME)
        .help("Client HTTP requests, from the request head decoded to the answer handed to the connection")
        .labelNames("method", "route", "status")
        .classicOnly()
        .classicUpperBounds(Buckets.REQUEST_SECONDS)
        .withoutExemplars()
        .register(registry);
    return new HttpRequestMetrics(histogram, nanoTime);
  }

  /**
   * Now on the clock requests are timed on, for a request's start ({@link #record}'s
   * {@code startNanos}); 0 from {@link #OFF}, which times nothing.
   */
  public long nowNanos() {
    return nanoTime.getAsLong();
  }

  /** Whether requests are recorded (false: {@link #OFF}). */
  public boolean isOn() {
    return histogram != null;
  }

  /**
   * A request of {@code method} to {@code route} was answered with {@code status}; its head was
   * decoded at {@code startNanos} (the node's Env's {@code nanoTime}).
   */
  public void record(@Nullable HttpMethod method, RequestRoute route, int status, long startNanos) {
    Histogram h = histogram;
    if (h == null) return;
    int methodIndex = methodIndex(method);
    int statusIndex = statusIndex(status);
    int index = (methodIndex * ROUTES.length + route.ordinal()) * STATUSES + statusIndex;
    DistributionDataPoint child = children.getAcquire(index);
    if (child == null) {
      child = h.labelValues(METHODS[methodIndex], route.label(), Integer.toString(MIN_STATUS + statusIndex));
      children.setRelease(index, child);
    }
    child.observe(Buckets.seconds(nanoTime.getAsLong() - startNanos));
  }

  private static int methodIndex(@Nullable HttpMethod method) {
    // Netty decodes the known methods to its constants, so identity is the common case.
    if (method == HttpMethod.GET) return 0;
    if (method == HttpMethod.PUT) return 1;
    if (method == HttpMethod.DELETE) return 2;
    if (method == HttpMethod.POST) return 3;
    if (method == HttpMethod.HEAD) return 4;
    if (method == null) return OTHER;
    return switch (method.name()) {
      case "GET" -> 0;
      case "PUT" -> 1;
      case "DELETE" -> 2;
      case "POST" -> 3;
      case "HEAD" -> 4;
      default -> OTHER;
    };
  }

  // The server sends only 1xx..5xx; any other code is clamped into that range (and labelled so),
  // so that it cannot index outside the array.
  private static int statusIndex(int status) {
    return Math.clamp(status, MIN_STATUS, MIN_STATUS + STATUSES - 1) - MIN_STATUS;
  }
}
