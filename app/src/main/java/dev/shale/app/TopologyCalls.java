package dev.shale.app;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.membership.ClusterMap;
import dev.shale.cluster.membership.ClusterMapCodec;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The cluster map's admin calls to one member (README, "Cluster"): read the map, join, remove a member.
 * A call answers the map, or throws {@link TopologyCallException} with one line saying why not.
 */
final class TopologyCalls {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private final NodeAddress node;
  private final Duration timeout;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT).build();

  TopologyCalls(NodeAddress node, Duration timeout) {
    this.node = node;
    this.timeout = timeout;
  }

  NodeAddress node() {
    return node;
  }

  ClusterMap map() {
    return ClusterMapCodec.decode(call("GET", "/v0/admin/topology"));
  }

  /** Asks the member to add {@code node}, whose Raft server listens on {@code raftAddress}. */
  ClusterMap join(NodeAddress node, String raftAddress) {
    return ClusterMapCodec.decode(call("POST", "/v0/admin/topology/join?url=" + URLEncoder.encode(node.url(), StandardCharsets.UTF_8)
        + "&raft=" + URLEncoder.encode(raftAddress, StandardCharsets.UTF_8)));
  }

  /** Asks the member to remove {@code member} ({@code dead}: at once, nothing streamed from it). */
  ClusterMap remove(NodeAddress member, boolean dead) {
    return ClusterMapCodec.decode(call("POST", "/v0/admin/topology/remove?url="
        + URLEncoder.encode(member.url(), StandardCharsets.UTF_8) + (dead ? "&dead=true" : "")));
  }

  private byte[] call(String method, String target) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(node.url() + target)).timeout(timeout)
        .method(method, HttpRequest.BodyPublishers.noBody()).build();
    HttpResponse<byte[]> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new TopologyCallException("cannot reach " + node + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TopologyCallException(method + " " + target + " to " + node + " was interrupted", e);
    }
    if (response.statusCode() == 200) return response.body();
    String reason = new String(response.body(), StandardCharsets.UTF_8).strip().replace('\n', ' ');
    throw new TopologyCallException(node + " answered " + response.statusCode() + ": " + reason, null);
  }
}
