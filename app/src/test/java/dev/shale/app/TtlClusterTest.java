package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import dev.shale.testkit.PeerWire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values with a ttl on a cluster of three node processes: the coordinator stamps one expiry that
 * every replica stores (also a replica that gets the write late, as a hint), and once it has
 * passed the value is gone from every node, read alone or coordinated, and from scans.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TtlClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();

  private TestCluster cluster;

  @BeforeAll
  void startCluster(@TempDir Path tmp) {
    cluster = new TestCluster(tmp, 3, List.of("--replica-timeout", "2000")).startAll();
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) cluster.close();
  }

  @Test
  void everyReplicaStoresTheCoordinatorsExpiry() throws Exception {
    long before = System.currentTimeMillis();
    assertThat(put(1, "long-lived", "ttl=3600&ack=3&from=3", "v").statusCode()).isEqualTo(201);
    List<PeerWire.Reply.Value> replicas = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) replicas.add(readAlone(i, "long-lived"));
    long expiresAt = replicas.getFirst().expiresAtMillis();
    assertThat(expiresAt).isBetween(before + 3_600_000, System.currentTimeMillis() + 3_600_000);
    for (PeerWire.Reply.Value replica : replicas) {
      assertThat(replica.expiresAtMillis()).as("every replica's expiry").isEqualTo(expiresAt);
      assertThat(replica.version()).isEqualTo(replicas.getFirst().version());
      assertThat(replica.value()).isEqualTo(bytes("v"));
    }
    for (int i = 0; i < cluster.size(); i++) {
      HttpResponse<byte[]> get = get(i, "/v0/entity?id=long-lived");
      assertThat(get.statusCode()).isEqualTo(200);
      assertThat(get.headers().firstValue("X-Shale-Expires")).as("node %d", i).hasValue(Long.toString(expiresAt));
    }
  }

  @Test
  void anExpiredValueIsGoneFromEveryNodeAndFromScans() throws Exception {
    assertThat(put(0, "ttl-brief", "ttl=1&ack=3&from=3", "brief").statusCode()).isEqualTo(201);
    assertThat(put(0, "ttl-kept", "ack=3&from=3", "kept").statusCode()).isEqualTo(201);
    for (int i = 0; i < cluster.size(); i++) {
      int node = i;
      Await.until("node " + node + " to hold the value with ttl=1 no more", WAIT,
          () -> read(node, "ttl-brief") instanceof PeerWire.Reply.Tombstone);
    }
    for (int i = 0; i < cluster.size(); i++) {
      assertThat(get(i, "/v0/entity?id=ttl-brief").statusCode()).as("node %d", i).isEqualTo(404);
      assertThat(get(i, "/v0/entity?id=ttl-brief&ack=1&from=1").statusCode()).as("node %d", i).isEqualTo(404);
      String scan = new String(get(i, "/v0/entities?start=ttl-").body(), StandardCharsets.UTF_8);
      assertThat(scan).as("node %d's scan", i).contains("ttl-kept").doesNotContain("ttl-brief");
    }
  }

  @Test
  void aReplicaThatMissedTheWriteGetsTheSameExpiryFromItsHint() throws Exception {
    String id = cluster.idWithReplicas("hinted", 0, 1, 2);
    cluster.stop(2);
    try {
      assertThat(put(0, id, "ttl=3600&ack=2&from=3", "late").statusCode()).isEqualTo(201);
      long expiresAt = readAlone(0, id).expiresAtMillis();
      assertThat(readAlone(1, id).expiresAtMillis()).isEqualTo(expiresAt);
      cluster.restart(2);
      Await.until("the hint to reach node 2", WAIT, () -> read(2, id) instanceof PeerWire.Reply.Value);
      assertThat(readAlone(2, id).expiresAtMillis()).as("the hinted replica's expiry").isEqualTo(expiresAt);
    } finally {
      if (!cluster.node(2).isAlive()) cluster.restart(2);
    }
  }

  private PeerWire.Reply.Value readAlone(int node, String id) throws IOException {
    PeerWire.Reply reply = read(node, id);
    assertThat(reply).as("node %d's own record of %s", node, id).isInstanceOf(PeerWire.Reply.Value.class);
    return (PeerWire.Reply.Value) reply;
  }

  // What node alone holds for id, read over the internode protocol (never coordinated).
  private PeerWire.Reply read(int node, String id) {
    try (PeerWire peer = cluster.peerOf(node)) {
      return peer.read(bytes(id));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private HttpResponse<byte[]> put(int node, String id, String params, String value) throws Exception {
    URI uri = URI.create(cluster.urls().get(node) + "/v0/entity?id=" + URLEncoder.encode(id, StandardCharsets.UTF_8) + "&" + params);
    return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
        .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes(value))).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private HttpResponse<byte[]> get(int node, String pathAndQuery) throws Exception {
    URI uri = URI.create(cluster.urls().get(node) + pathAndQuery);
    return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
