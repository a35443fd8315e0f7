package dev.shale.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Talks to a node's operator endpoints like any client: {@code GET /v0/status} for its pid (the
 * profiler attaches to it) and heap, {@code POST /v0/admin/compact} for a full compaction. Each
 * takes the run's {@link LoadSpec} for the node's URL and the API token its requests carry: a
 * node started with {@code --auth tokens} tells a caller without one only that it is up, and
 * takes no admin call from it.
 */
public final class NodeStatus {
  private NodeStatus() {}

  public static long pid(LoadSpec node) throws LoadException {
    return field(node, "pid");
  }

  /** The node's maximum heap, to size a store as a multiple of it. */
  public static long maxHeapBytes(LoadSpec node) throws LoadException {
    return field(node, "maxHeapBytes");
  }

  /** The node's memory budget ({@code --memory}; 0 without one), to size a store as a multiple of it. */
  public static long memoryBudgetBytes(LoadSpec node) throws LoadException {
    return field(node, "budgetBytes");
  }

  /** Compacts the node's whole store, waiting up to {@code timeout}; returns the node's one-line report. */
  public static String compact(LoadSpec node, Duration timeout) throws LoadException {
    URI compact = node.url().resolve("/v0/admin/compact");
    HttpResponse<String> response = send(node, request(compact, node.token()).timeout(timeout)
        .POST(HttpRequest.BodyPublishers.noBody()).build());
    if (response.statusCode() != 200) {
      throw new LoadException(compact + " answered " + response.statusCode() + ": " + response.body().strip());
    }
    return response.body().strip();
  }

  private static long field(LoadSpec node, String name) throws LoadException {
    URI status = node.url().resolve("/v0/status");
    HttpResponse<String> response = send(node, request(status, node.token()).timeout(Duration.ofSeconds(10)).build());
    Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*(\\d+)").matcher(response.body());
    if (response.statusCode() != 200 || !m.find()) {
      throw new LoadException(status + " answered " + response.statusCode() + " without \"" + name + "\""
          + ("pid".equals(name) ? "; pass --pid" : ""));
    }
    return Long.parseLong(m.group(1));
  }

  private static HttpRequest.Builder request(URI uri, @Nullable String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri);
    if (token != null) request.header("Authorization", "Bearer " + token);
    return request;
  }

  private static HttpResponse<String> send(LoadSpec node, HttpRequest request) throws LoadException {
    try (HttpClient client = LoadTls.httpClient(node).connectTimeout(Duration.ofSeconds(5)).build()) {
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new LoadException("cannot reach " + request.uri() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LoadException("interrupted", e);
    }
  }
}
