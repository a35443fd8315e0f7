package dev.shale.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A plain HTTP/1.1 client of one node's {@code /v0/entity} API, for tests. Thread safe, and cheap
 * to make: every instance in a JVM sends through one shared {@link HttpClient} and its pool of
 * connections. Methods throw {@link IOException} when the node cannot be reached, so that tests
 * that kill a node can tell "not acknowledged" from "refused".
 */
public final class EntityClient {
  // One for the JVM. Tests make a client per request in loops (thousands in a cluster test);
  // each HttpClient of its own opened a new connection and left a selector thread behind until
  // the next GC (4,000 threads after 2,000 requests), and took several times as long per request
  // as a pooled connection. The pool drops a connection once its node closes it (a node killed
  // or stopped), so a node started again on the same port is reached over a new one.
  private static final HttpClient SHARED = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2))
      .build();

  /** A response: its status code and body. */
  public record Reply(int status, byte[] body) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final HttpClient http;
  private final String baseUrl;
  private final String params; // appended to every request's query: "" or "&ack=A&from=F"

  public EntityClient(String baseUrl) {
    this(baseUrl, SHARED, "");
  }

  private EntityClient(String baseUrl, HttpClient http, String params) {
    this.baseUrl = baseUrl;
    this.http = http;
    this.params = params;
  }

  /** A client of the same node whose requests ask for {@code ack} answers of {@code from} replicas. */
  public EntityClient consistency(int ack, int from) {
    return new EntityClient(baseUrl, http, "&ack=" + ack + "&from=" + from);
  }

  public Reply put(String id, byte[] value) throws IOException {
    return send(request(id).PUT(HttpRequest.BodyPublishers.ofByteArray(value)));
  }

  public Reply get(String id) throws IOException {
    return send(request(id).GET());
  }

  public Reply delete(String id) throws IOException {
    return send(request(id).DELETE());
  }

  /** Like {@link #get} but for tests where the node must be up: I/O failures fail the test. */
  public Reply getOrFail(String id) {
    try {
      return get(id);
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + id + " from " + baseUrl, e);
    }
  }

  private HttpRequest.Builder request(String id) {
    String url = baseUrl + "/v0/entity?id=" + URLEncoder.encode(id, StandardCharsets.UTF_8) + params;
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
  }

  private Reply send(HttpRequest.Builder builder) throws IOException {
    try {
      HttpResponse<byte[]> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
      return new Reply(response.statusCode(), response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
