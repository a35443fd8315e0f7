package dev.shale.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Versions;
import dev.shale.testkit.EntityClient;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.NodeProcess;
import dev.shale.testkit.PeerWire;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the nodes of a real cluster do with what an attacker sends them: a handshake without the
 * secret, a genuine handshake recorded and replayed, replica writes at versions no clock reaches
 * (from a holder of the secret), and client requests dressed as internal ones. Each side of the
 * internode protocol here is {@link PeerWire}, written from the spec alone.
 */
class InternalRequestForgeryTest {
  private static final String ID = "forged";
  private static final byte[] WRONG_SECRET = "not-the-cluster-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  @Test
  void aHandshakeWithAWrongSecretOrReplayedIsRefused(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 2, List.of()).startAll()) {
      byte[] secret = TestCluster.SECRET.getBytes(StandardCharsets.UTF_8);
      int port = cluster.port(0);
      // A client with the wrong secret finds that the node's proof does not check out...
      assertThatThrownBy(() -> PeerWire.open(port, WRONG_SECRET, cluster.nodeId(1), cluster.nodeId(0)))
          .hasMessageContaining("cannot prove the cluster secret");
      // ... and its own proof is refused.
      try (PeerWire stranger = PeerWire.connect(port)) {
        byte[] hello = hello(cluster);
        stranger.sendBytes(PeerWire.PREFACE).send(PeerWire.HELLO, 0, hello);
        byte[] serverNonce = stranger.challenge(null, hello);
        stranger.send(PeerWire.PROOF, 0, PeerWire.clientProof(WRONG_SECRET, hello, serverNonce));
        assertRefused(stranger, "wrong cluster secret");
      }

      // A genuine HELLO and PROOF, recorded and sent again on a new connection, meet a new challenge.
      byte[] hello = hello(cluster);
      byte[] proof;
      try (PeerWire genuine = PeerWire.connect(port)) {
        genuine.sendBytes(PeerWire.PREFACE).send(PeerWire.HELLO, 0, hello);
        proof = PeerWire.clientProof(secret, hello, genuine.challenge(secret, hello));
        genuine.send(PeerWire.PROOF, 0, proof);
        assertThat(genuine.receive()).extracting(PeerWire.Frame::type).isEqualTo(PeerWire.READY);
      }
      try (PeerWire replay = PeerWire.connect(port)) {
        replay.sendBytes(PeerWire.PREFACE).send(PeerWire.HELLO, 0, hello);
        replay.challenge(secret, hello);
        replay.send(PeerWire.PROOF, 0, proof);
        assertRefused(replay, "wrong cluster secret");
      }
      assertThat(cluster.client(0).consistency(2, 2).put(ID, bytes("v")).status()).as("the cluster still works").isEqualTo(201);
    }
  }

  @Test
  void internalHeadersOnAnHttpRequestMakeAClientRequestThatCannotChooseItsVersion(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 2, List.of()).startAll()) {
      long chosen = Long.MAX_VALUE - 50;
      URI uri = URI.create(cluster.urls().get(0) + "/v0/entity?id=" + ID + "&ack=2&from=2");
      HttpRequest.Builder dressed = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
          .header("X-Shale-Internal", "v2 " + cluster.nodeId(1) + " " + cluster.nodeId(0) + " 1 "
              + System.currentTimeMillis() + " AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
          .header("X-Shale-Cluster", "0123456789abcdef")
          .header("X-Shale-Version", Long.toString(chosen));
      try (HttpClient http = HttpClient.newHttpClient()) {
        HttpResponse<String> put = http.send(dressed.copy().PUT(HttpRequest.BodyPublishers.ofString("dressed")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        HttpResponse<String> get = http.send(dressed.copy().GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.body()).isEqualTo("dressed");
        long version = Long.parseLong(get.headers().firstValue("X-Shale-Version").orElseThrow());
        assertThat(version).as("the coordinator's version").isLessThan(Versions.of(System.currentTimeMillis() + 60_000, 0));
        for (int node = 0; node < 2; node++) {
          try (PeerWire peer = cluster.peerOf(node)) {
            assertThat(peer.read(bytes(ID))).as("node %d", node).usingRecursiveComparison()
                .isEqualTo(new PeerWire.Reply.Value(version, bytes("dressed")));
          }
        }
      }
      EntityClient client = cluster.client(1).consistency(2, 2);
      assertThat(client.put(ID, bytes("later")).status()).isEqualTo(201);
      assertThat(client.get(ID).text()).isEqualTo("later");
    }
  }

  @Test
  void aReplicaWriteAtAVersionNoClockReachesIsRefusedAndTheKeyStaysWritable(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 2, List.of()).startAll()) {
      try (PeerWire peer = cluster.peerOf(0)) {
        for (long version : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 50}) {
          PeerWire.Reply reply = peer.write(bytes(ID), bytes("poison"), version);
          assertThat(reply).as("version %d", version).isInstanceOf(PeerWire.Reply.Failed.class);
          PeerWire.Reply.Failed refused = (PeerWire.Reply.Failed) reply;
          assertThat(refused.code()).as("too far ahead: " + refused.reason()).isEqualTo(5);
          assertThat(refused.reason()).contains("ms ahead of this node's clock");
        }
        assertThat(peer.read(bytes(ID))).as("nothing stored").isEqualTo(new PeerWire.Reply.Absent());
      }
      EntityClient client = cluster.client(0).consistency(2, 2);
      assertThat(client.put(ID, bytes("later")).status()).isEqualTo(201);
      assertThat(client.get(ID).text()).isEqualTo("later");
      assertThat(cluster.readAlone(0, ID).text()).isEqualTo("later");
      assertThat(client.delete(ID).status()).isEqualTo(202);
      assertThat(client.get(ID).status()).isEqualTo(404);
    }
  }

  @Test
  void aReplicaRequestFromACoordinatorWhoseMapIsOlderThanTheNodesPlacementIsRefused(@TempDir Path tmp) throws Exception {
    try (TestCluster cluster = new TestCluster(tmp, 2, List.of()).startAll()) {
      List<String> urls = new ArrayList<>(cluster.urls());
      MembershipClusterTest.awaitTopology(urls, urls, "normal");
      NodeProcess third = MembershipClusterTest.launchJoining(cluster, TestCluster.nodePort(), FreePort.find(), urls.getFirst());
      try {
        third.awaitReady(TestCluster.READY);
        urls.add(third.baseUrl());
        long joined = MembershipClusterTest.awaitTopology(urls, urls, "normal").version();
        // The join changed who is written to at its log index, after the bootstrap's: map 1 is older.
        try (PeerWire peer = cluster.peerOf(0)) {
          for (PeerWire.Reply reply : List.of(peer.write(bytes(ID), bytes("stale"), 1, 1), peer.read(bytes(ID), 1))) {
            assertThat(reply).isInstanceOf(PeerWire.Reply.Failed.class);
            PeerWire.Reply.Failed refused = (PeerWire.Reply.Failed) reply;
            assertThat(refused.code()).as(refused.reason()).isEqualTo(1);
            assertThat(refused.reason()).contains("the coordinator's cluster map (version 1) is older than this node's placement");
          }
          assertThat(peer.read(bytes(ID), joined)).as("nothing stored").isEqualTo(new PeerWire.Reply.Absent());
          assertThat(peer.write(bytes(ID), bytes("current"), 1, joined)).isEqualTo(new PeerWire.Reply.Stored());
        }
      } finally {
        third.close();
      }
    }
  }

  /** A HELLO from node 1 to node 0 with a fresh nonce. */
  private static byte[] hello(TestCluster cluster) {
    return PeerWire.hello(PeerWire.PROTOCOL_VERSION, PeerWire.MODE_SECRET, cluster.nodeId(1), cluster.nodeId(0),
        0, PeerWire.nonce());
  }

  private static void assertRefused(PeerWire wire, String reason) throws Exception {
    PeerWire.Frame refused = wire.receive();
    assertThat(refused).isNotNull();
    assertThat(refused.type()).isEqualTo(PeerWire.REFUSED);
    assertThat(new String(refused.payload(), StandardCharsets.UTF_8)).contains(reason);
    assertThat(wire.closedByNode()).isTrue();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
