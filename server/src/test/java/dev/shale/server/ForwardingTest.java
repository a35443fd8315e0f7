package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.testkit.FreePort;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forwarding in one JVM: real servers on loopback, a peer that accepts connections and never
 * answers (a "black hole"), and a peer port where nothing listens.
 */
class ForwardingTest {
  private static final byte[] SECRET = "forwarding-test-secret".getBytes(StandardCharsets.UTF_8);

  @Test
  void aRequestForAKeyOfAnotherNodeIsRelayedWithStatusBodyAndType(@TempDir Path tmp) {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 4, 16);
        Node b = Node.start(tmp.resolve("b"), portB, urls, 2_000, 4, 16)) {
      String id = keyOwnedBy(a.cluster, portB);
      byte[] value = new byte[1 << 20];
      new java.util.Random(7).nextBytes(value);
      assertThat(a.server.put(a.server.entity(id), value).statusCode()).isEqualTo(201);

      HttpResponse<byte[]> viaA = a.server.get(a.server.entity(id));
      assertThat(viaA.statusCode()).isEqualTo(200);
      assertThat(viaA.body()).isEqualTo(value);
      assertThat(viaA.headers().firstValue("content-type")).hasValue("application/octet-stream");
      assertThat(b.engine.get(id.getBytes(StandardCharsets.UTF_8))).as("stored on the owner").isNotNull();
      assertThat(a.engine.get(id.getBytes(StandardCharsets.UTF_8))).as("not on the forwarder").isNull();

      assertThat(a.server.delete(a.server.entity(id)).statusCode()).isEqualTo(202);
      HttpResponse<byte[]> gone = a.server.get(a.server.entity(id));
      assertThat(gone.statusCode()).isEqualTo(404);
      assertThat(TestServer.text(gone)).contains("no value for this id");
    }
  }

  @Test
  void nodesStartedWithDifferentListsRefuseToServeEachOther(@TempDir Path tmp) {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> two = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    List<String> three = List.of(two.get(0), two.get(1), "http://127.0.0.1:" + FreePort.find());
    try (Node a = Node.start(tmp.resolve("a"), portA, two, 2_000, 4, 16);
        Node b = Node.start(tmp.resolve("b"), portB, three, 2_000, 4, 16)) {
      String id = keyOwnedBy(a.cluster, portB);
      HttpResponse<byte[]> response = a.server.put(a.server.entity(id), new byte[] {1});
      assertThat(response.statusCode()).isEqualTo(500);
      assertThat(TestServer.text(response)).contains("differs from this node's", "start every node with the same list");
      assertThat(b.engine.get(id.getBytes(StandardCharsets.UTF_8))).as("nothing stored").isNull();
    }
  }

  @Test
  void aPeerThatNeverAnswersCostsItsKeys504AndOthersNothing(@TempDir Path tmp) throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
      int portA = FreePort.find();
      List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + blackHole.getLocalPort());
      try (Node a = Node.start(tmp.resolve("a"), portA, urls, 500, 4, 16)) {
        String stuck = keyOwnedBy(a.cluster, blackHole.getLocalPort());
        String local = keyOwnedBy(a.cluster, portA);
        CompletableFuture<HttpResponse<byte[]>> waiting = a.server.client.sendAsync(
            HttpRequest.newBuilder(a.server.entity(stuck)).timeout(TestServer.TIMEOUT).GET().build(),
            HttpResponse.BodyHandlers.ofByteArray());
        // While that one waits for the black hole, a local key is served.
        assertThat(a.server.put(a.server.entity(local), new byte[] {1}).statusCode()).isEqualTo(201);
        assertThat(a.server.get(a.server.entity(local)).statusCode()).isEqualTo(200);

        HttpResponse<byte[]> timedOut = waiting.get();
        assertThat(timedOut.statusCode()).isEqualTo(504);
        assertThat(TestServer.text(timedOut)).contains("did not answer within 500 ms");
      }
    }
  }

  @Test
  void pastTheConnectionsAndTheQueueOfAPeerRequestsGet503AtOnce(@TempDir Path tmp) throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
      int portA = FreePort.find();
      List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + blackHole.getLocalPort());
      // One connection, one waiting request: of five at once, three are refused.
      try (Node a = Node.start(tmp.resolve("a"), portA, urls, 3_000, 1, 1)) {
        String stuck = keyOwnedBy(a.cluster, blackHole.getLocalPort());
        List<CompletableFuture<HttpResponse<byte[]>>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          calls.add(a.server.client.sendAsync(
              HttpRequest.newBuilder(a.server.entity(stuck)).timeout(TestServer.TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofByteArray()));
        }
        List<String> answers = new ArrayList<>();
        for (var call : calls) answers.add(call.get().statusCode() + " " + TestServer.text(call.get()).trim());
        assertThat(answers.stream().filter(s -> s.startsWith("503") && s.contains("too many requests are waiting")))
            .as("answers %s", answers).hasSize(3);
        // The one sent times out; the one waiting for the connection times out too, either still
        // waiting (503, never sent) or just sent on the connection the first one freed (504).
        assertThat(answers.stream().filter(s -> s.startsWith("504") || s.contains("no connection")))
            .as("answers %s", answers).hasSize(2);
      }
    }
  }

  @Test
  void aPeerThatRefusesConnectionsCostsItsKeys503AndIsThenTakenAsDown(@TempDir Path tmp) {
    int portA = FreePort.find();
    int nobody = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + nobody);
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 4, 16)) {
      String id = keyOwnedBy(a.cluster, nobody);
      HttpResponse<byte[]> first = a.server.get(a.server.entity(id));
      assertThat(first.statusCode()).isEqualTo(503);
      assertThat(TestServer.text(first)).contains("cannot connect to http://127.0.0.1:" + nobody);
      assertThat(first.headers().firstValue("retry-after")).hasValue("1");
      HttpResponse<byte[]> second = a.server.get(a.server.entity(id));
      assertThat(second.statusCode()).isEqualTo(503);
      assertThat(TestServer.text(second)).containsAnyOf("is down", "cannot connect");
    }
  }

  @Test
  void aSignedInternalRequestIsServedLocallyAndAnUnsignedOneRefused(@TempDir Path tmp) throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
      int portA = FreePort.find();
      List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + blackHole.getLocalPort());
      try (Node a = Node.start(tmp.resolve("a"), portA, urls, 10_000, 4, 16)) {
        String id = keyOwnedBy(a.cluster, blackHole.getLocalPort());
        String target = "/v0/entity?id=" + id;
        String signed = InternalAuth.withSecret(SECRET).sign("GET", target, System.currentTimeMillis());
        HttpResponse<byte[]> local = a.server.send(HttpRequest.newBuilder(a.server.uri(target))
            .header(InternalAuth.HEADER, signed).timeout(TestServer.TIMEOUT).GET().build());
        assertThat(local.statusCode()).as("served here, not sent to the black hole").isEqualTo(404);

        String stale = InternalAuth.withSecret(SECRET).sign("GET", target, System.currentTimeMillis() - 120_000);
        HttpResponse<byte[]> refused = a.server.send(HttpRequest.newBuilder(a.server.uri(target))
            .header(InternalAuth.HEADER, stale).timeout(TestServer.TIMEOUT).GET().build());
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(TestServer.text(refused)).contains("stale");
      }
    }
  }

  @Test
  void aNodeWithoutClusterRefusesInternalRequests(@TempDir Path tmp) {
    try (TestServer server = TestServer.start(tmp)) {
      HttpResponse<byte[]> response = server.send(HttpRequest.newBuilder(server.entity("a"))
          .header(InternalAuth.HEADER, "trusted").timeout(TestServer.TIMEOUT).GET().build());
      assertThat(response.statusCode()).isEqualTo(403);
      assertThat(TestServer.text(response)).contains("not part of a cluster");
    }
  }

  private static String keyOwnedBy(Cluster cluster, int port) {
    for (int i = 0; ; i++) {
      if (cluster.placement().owner(("id" + i).getBytes(StandardCharsets.UTF_8)).port() == port) return "id" + i;
    }
  }

  /** A cluster node in this JVM: an engine, a server, its cluster, and a client ({@link TestServer}). */
  private record Node(Engine engine, TestServer server, Cluster cluster) implements AutoCloseable {
    static Node start(Path dir, int port, List<String> urls, long timeoutMillis, int connections, int pending) {
      Cluster cluster = new Cluster(new Placement(Topology.fromUrls(urls, "127.0.0.1", port)),
          InternalAuth.withSecret(SECRET), timeoutMillis, connections, pending);
      Engine engine = Engine.open(dir, EngineOptions.defaults());
      try {
        return new Node(engine, TestServer.wrap(engine, ShaleServer.start(engine, TestServer.options().withPort(port), cluster)), cluster);
      } catch (RuntimeException e) {
        engine.close();
        throw e;
      }
    }

    @Override
    public void close() {
      server.close(); // closes the engine too
    }
  }
}
