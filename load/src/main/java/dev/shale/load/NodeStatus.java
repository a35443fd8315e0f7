package dev.shale.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Asks a node's {@code GET /v0/status} for its pid (the profiler attaches to it). */
public final class NodeStatus {
  private static final Pattern PID = Pattern.compile("\"pid\"\\s*:\\s*(\\d+)");

  private NodeStatus() {}

  public static long pid(URI url) throws LoadException {
    URI status = url.resolve("/v0/status");
    try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      Matcher m = PID.matcher(response.body());
      if (response.statusCode() != 200 || !m.find()) {
        throw new LoadException(status + " answered " + response.statusCode() + " without a pid; pass --pid");
      }
      return Long.parseLong(m.group(1));
    } catch (IOException e) {
      throw new LoadException("cannot ask " + status + " for the node's pid: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LoadException("interrupted", e);
    }
  }
}
