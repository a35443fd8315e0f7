package dev.shale.load;

import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One open-loop run: {@code rate} requests per second in total over {@code connections}
 * connections served by {@code threads} event loops, {@code warmup} unrecorded then
 * {@code duration} measured.
 *
 * @param keys the key space: GETs pick among k0..k(keys-1), which must exist
 * @param seed drives every random choice of the run, so a run can be replayed
 */
public record LoadSpec(
    URI url,
    Workload workload,
    double rate,
    int connections,
    int threads,
    Duration duration,
    Duration warmup,
    int valueSizeBytes,
    long keys,
    KeyDistribution distribution,
    KeyOrder keyOrder,
    Duration timeout,
    long seed,
    @Nullable String token,
    @Nullable SslContext tls) {

  /** How GETs choose among existing keys. */
  public enum KeyDistribution { UNIFORM, ZIPF }

  /** How PUTs number their keys: k0, k1, ... or uniformly random in 0..keys-1. */
  public enum KeyOrder { SEQUENTIAL, RANDOM }

  public LoadSpec {
    if (!(rate > 0) || Double.isInfinite(rate)) throw new IllegalArgumentException("--rate must be a positive number of requests/s, not " + rate);
    if (connections < 1) throw new IllegalArgumentException("--connections must be at least 1, not " + connections);
    if (threads < 1) throw new IllegalArgumentException("--threads must be at least 1, not " + threads);
    if (duration.isNegative() || duration.isZero()) throw new IllegalArgumentException("--duration must be positive, not " + duration);
    if (warmup.isNegative()) throw new IllegalArgumentException("--warmup must not be negative, not " + warmup);
    if (valueSizeBytes < 0) throw new IllegalArgumentException("--value-size must not be negative, not " + valueSizeBytes);
    if (keys < 1) throw new IllegalArgumentException("--keys must be at least 1, not " + keys);
    if (timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("--timeout must be positive, not " + timeout);
    threads = Math.min(threads, connections);
  }

  /** A run without an API token. */
  public LoadSpec(URI url, Workload workload, double rate, int connections, int threads, Duration duration, Duration warmup,
      int valueSizeBytes, long keys, KeyDistribution distribution, KeyOrder keyOrder, Duration timeout, long seed) {
    this(url, workload, rate, connections, threads, duration, warmup, valueSizeBytes, keys, distribution, keyOrder, timeout,
        seed, null, null);
  }

  /** The same run over TLS with {@code newTls} (an https:// URL), or in clear (null). */
  public LoadSpec withTls(@Nullable SslContext newTls) {
    return new LoadSpec(url, workload, rate, connections, threads, duration, warmup, valueSizeBytes, keys,
        distribution, keyOrder, timeout, seed, token, newTls);
  }

  /** The same run, sending {@code newToken} ({@code Authorization: Bearer}) with every request. */
  public LoadSpec withToken(@Nullable String newToken) {
    return new LoadSpec(url, workload, rate, connections, threads, duration, warmup, valueSizeBytes, keys,
        distribution, keyOrder, timeout, seed, newToken, tls);
  }

  @Override
  public String toString() {
    // Never the token's secret, wherever a spec is printed.
    return "LoadSpec[url=" + url + ", workload=" + workload + ", rate=" + rate + ", connections=" + connections + ", threads="
        + threads + ", duration=" + duration + ", warmup=" + warmup + ", valueSizeBytes=" + valueSizeBytes + ", keys=" + keys
        + ", distribution=" + distribution + ", keyOrder=" + keyOrder + ", timeout=" + timeout + ", seed=" + seed
        + ", token=" + (token == null ? "none" : "given") + ", tls=" + (tls != null) + "]";
  }

  /** The same run at another target rate. */
  public LoadSpec withRate(double newRate) {
    return new LoadSpec(url, workload, newRate, connections, threads, duration, warmup, valueSizeBytes, keys,
        distribution, keyOrder, timeout, seed, token, tls);
  }

  /** The same run with other durations. */
  public LoadSpec withDurations(Duration newDuration, Duration newWarmup) {
    return new LoadSpec(url, workload, rate, connections, threads, newDuration, newWarmup, valueSizeBytes, keys,
        distribution, keyOrder, timeout, seed, token, tls);
  }

  /** The same run with another key space. */
  public LoadSpec withKeys(long newKeys) {
    return new LoadSpec(url, workload, rate, connections, threads, duration, warmup, valueSizeBytes, newKeys,
        distribution, keyOrder, timeout, seed, token, tls);
  }

  /** The same run with {@code query} (say {@code ack=1&from=3}) as the URL's query, added to every request. */
  public LoadSpec withQuery(String query) {
    URI withQuery = URI.create(url.getScheme() + "://" + url.getRawAuthority() + "/?" + query);
    return new LoadSpec(withQuery, workload, rate, connections, threads, duration, warmup, valueSizeBytes, keys,
        distribution, keyOrder, timeout, seed, token, tls);
  }

  /** The same run of another workload. */
  public LoadSpec withWorkload(Workload newWorkload, int newConnections, int newValueSizeBytes) {
    return new LoadSpec(url, newWorkload, rate, newConnections, threads, duration, warmup, newValueSizeBytes, keys,
        distribution, keyOrder, timeout, seed, token, tls);
  }
}
