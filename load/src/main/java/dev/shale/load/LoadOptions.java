package dev.shale.load;

import java.net.URI;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The options every load command shares (a picocli mixin), and their checks. */
public final class LoadOptions {
  @Spec(Spec.Target.MIXEE) CommandSpec spec;

  @Option(names = "--url", required = true, description = "The node, e.g. http://127.0.0.1:8080 (or https:// for a node serving TLS). A query (http://127.0.0.1:8080/?ack=1&from=3) is added to every request.")
  String url;

  @Option(names = "--workload", defaultValue = "put",
      description = "put|get|get-absent|mixed|delete|range. Default: ${DEFAULT-VALUE}.")
  String workload;

  @Option(names = {"-c", "--connections"}, defaultValue = "1",
      description = "Kept-alive connections, one request in flight on each. Default: ${DEFAULT-VALUE}.")
  int connections;

  @Option(names = {"-t", "--threads"}, defaultValue = "1",
      description = "Event-loop threads of the generator (at most one per connection). Default: ${DEFAULT-VALUE}.")
  int threads;

  @Option(names = {"-d", "--duration"}, defaultValue = "30s", converter = DurationConverter.class,
      description = "Measured interval (e.g. 30s, 2m). Default: ${DEFAULT-VALUE}.")
  Duration duration;

  @Option(names = "--warmup", defaultValue = "15s", converter = DurationConverter.class,
      description = "Unrecorded run at the same rate before the measured interval. Default: ${DEFAULT-VALUE}.")
  Duration warmup;

  @Option(names = "--value-size", defaultValue = "100", description = "PUT value size in bytes. Default: ${DEFAULT-VALUE}.")
  int valueSize;

  @Option(names = "--keys", defaultValue = "1000000",
      description = "Key space k0..k(N-1): GETs choose among these (fill them first). Default: ${DEFAULT-VALUE}.")
  long keys;

  @Option(names = "--distribution", defaultValue = "uniform",
      description = "How GETs choose keys: uniform|zipf (theta 0.99). Default: ${DEFAULT-VALUE}.")
  String distribution;

  @Option(names = "--key-order", defaultValue = "sequential",
      description = "PUT keys: sequential (k0, k1, ...)|random (in the key space). Default: ${DEFAULT-VALUE}.")
  String keyOrder;

  @Option(names = "--timeout", defaultValue = "10s", converter = DurationConverter.class,
      description = "After the run, how long to wait for the last answers before counting them as timeouts. Default: ${DEFAULT-VALUE}.")
  Duration timeout;

  @Mixin NodeAccess access;

  @Option(names = "--seed", description = "Seed of the random choices (printed; default: random).")
  Long seed;

  /** The checked spec at {@code rate}; a usage error (exit 2) names the bad option. */
  LoadSpec toSpec(double rate) {
    LoadSpec node;
    try {
      node = new LoadSpec(parseUrl(), Workload.parse(workload), rate, connections, threads, duration, warmup,
          valueSize, keys, parseEnum(LoadSpec.KeyDistribution.class, distribution, "--distribution"),
          parseEnum(LoadSpec.KeyOrder.class, keyOrder, "--key-order"), timeout,
          seed != null ? seed : new java.util.SplittableRandom().nextLong());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    return access.applyTo(node);
  }

  private URI parseUrl() {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--url '" + url + "' is not a URL: " + e.getMessage());
    }
    boolean https = "https".equals(uri.getScheme());
    if (!(https || "http".equals(uri.getScheme())) || uri.getHost() == null) {
      throw new IllegalArgumentException("--url '" + url + "' must be http://host:port or https://host:port");
    }
    return uri.getPort() > 0 ? uri : URI.create(uri.getScheme() + "://" + uri.getHost() + ":" + EventLoops.port(uri));
  }

  private static <E extends Enum<E>> E parseEnum(Class<E> type, String value, String option) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(value)) return e;
    }
    throw new IllegalArgumentException(option + " '" + value + "' is not one of "
        + java.util.Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(java.util.Locale.ROOT)).toList());
  }
}
