package dev.shale.load;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * The requests of one connection. Connection {@code index} of {@code count} numbers new keys
 * index, index+count, index+2*count, ... so that together the connections write k0, k1, k2, ...
 * like one sequential writer, without sharing a counter.
 *
 * <p>Confined to the connection's event loop.
 */
final class RequestSource {
  static final String ENTITY = "/v0/entity?id=";
  static final String RANGE = "/v0/entities?start=";
  /** Keys a range request spans, counted in the numbering k<n> (lexicographic order is the node's). */
  static final int RANGE_SPAN = 100;

  private final LoadSpec spec;
  private final int index;
  private final SplittableRandom random;
  private final @Nullable ZipfianKeys zipf; // null unless the distribution is Zipfian
  private final ValuePool values; // shared by the run's connections
  private final String host;
  // "&" + the --url's query (say ack=1&from=3), added to every request; "" without one.
  private final String params;
  private long counter;

  LoadSpec spec() {
    return spec;
  }

  RequestSource(LoadSpec spec, int index, @Nullable ZipfianKeys zipf, ValuePool values) {
    this.spec = spec;
    this.index = index;
    this.random = new SplittableRandom(spec.seed() * 1_000_003L + index);
    this.zipf = zipf;
    this.values = values;
    this.host = spec.url().getHost() + ":" + spec.url().getPort();
    this.params = spec.url().getRawQuery() == null ? "" : "&" + spec.url().getRawQuery();
  }

  FullHttpRequest next() {
    return switch (spec.workload()) {
      case PUT -> put(newKey());
      case GET -> get(ENTITY + "k" + existingKey());
      case GET_ABSENT -> get(ENTITY + "absent" + random.nextLong(Long.MAX_VALUE));
      case MIXED -> random.nextBoolean() ? put(newKey()) : get(ENTITY + "k" + existingKey());
      case DELETE -> request(HttpMethod.DELETE, ENTITY + "k" + sequentialKey(), false);
      case RANGE -> {
        long start = existingKey();
        yield get(RANGE + "k" + start + "&end=k" + (start + RANGE_SPAN));
      }
    };
  }

  private long newKey() {
    return spec.keyOrder() == LoadSpec.KeyOrder.RANDOM ? random.nextLong(spec.keys()) : sequentialKey();
  }

  private long sequentialKey() {
    return counter++ * spec.connections() + index;
  }

  private long existingKey() {
    return zipf != null ? zipf.next(random) : random.nextLong(spec.keys());
  }

  /** PUT of k{@code key} with a value of the pool (the fill's request). */
  FullHttpRequest putOf(long key) {
    return put(key);
  }

  private FullHttpRequest put(long key) {
    return request(HttpMethod.PUT, ENTITY + "k" + key, true);
  }

  private FullHttpRequest get(String path) {
    return request(HttpMethod.GET, path, false);
  }

  private FullHttpRequest request(HttpMethod method, String path, boolean withValue) {
    // The pool's array is shared: each request wraps a window of it (no copy), and nothing writes to it.
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, path + params,
        withValue ? values.next(random) : Unpooled.EMPTY_BUFFER);
    request.headers().set(HttpHeaderNames.HOST, host);
    String token = spec.token();
    if (token != null) request.headers().set(HttpHeaderNames.AUTHORIZATION, "Bearer " + token);
    request.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, withValue ? values.valueSizeBytes() : 0);
    return request;
  }
}
