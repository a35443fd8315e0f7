package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.Cluster;
import dev.shale.cluster.InternalAuth;
import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.cluster.coordination.MissedWrites;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.HybridClock;
import dev.shale.storage.Versions;
import dev.shale.testkit.Await;
import dev.shale.testkit.FreePort;
import dev.shale.testkit.PeerWire;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coordination and the replica protocol in one JVM: real servers on loopback, a peer that
 * accepts connections and never answers (a "black hole"), a peer port where nothing listens, and
 * a replica whose engine holds its reads (a stalled replica).
 */
class ReplicationTest {
  private static final String VERSION = "X-Shale-Version";
  private static final byte[] SECRET = "replication-test-secret".getBytes(StandardCharsets.UTF_8);

  @Test
  void aWriteGoesToFromReplicasWithOneVersionAndAnyNodeReadsIt(@TempDir Path tmp) {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16);
        Node b = Node.start(tmp.resolve("b"), portB, urls, 2_000, 16)) {
      byte[] value = new byte[1 << 20];
      new java.util.Random(7).nextBytes(value);
      assertThat(a.server.put(a.server.entity("k"), value).statusCode()).isEqualTo(201);
      Entry onA = a.engine.get(bytes("k"));
      Entry onB = b.engine.get(bytes("k"));
      assertThat(onA).as("on A").isNotNull().isEqualTo(onB);

      HttpResponse<byte[]> viaB = b.server.get(b.server.entity("k"));
      assertThat(viaB.statusCode()).isEqualTo(200);
      assertThat(viaB.body()).isEqualTo(value);
      assertThat(viaB.headers().firstValue(VERSION)).hasValue(Long.toString(onA.version()));

      assertThat(b.server.delete(b.server.entity("k")).statusCode()).isEqualTo(202);
      assertThat(a.engine.get(bytes("k")).isTombstone()).isTrue();
      assertThat(b.engine.get(bytes("k")).isTombstone()).isTrue();
      HttpResponse<byte[]> gone = a.server.get(a.server.entity("k"));
      assertThat(gone.statusCode()).isEqualTo(404);
      assertThat(TestServer.text(gone)).contains("no value for this id");

      // from=1: the first node of the preference list only.
      String id = keyOwnedBy(a.cluster, portB);
      assertThat(a.server.put(a.server.uri("/v0/entity?id=" + id + "&ack=1&from=1"), new byte[] {1}).statusCode()).isEqualTo(201);
      assertThat(b.engine.get(bytes(id))).isNotNull();
      assertThat(a.engine.get(bytes(id))).as("not on the node after the first").isNull();
      // Served by B alone (its own replica, not coordinated): the version all the same (issue 36, stumble 4).
      HttpResponse<byte[]> alone = b.server.get(b.server.uri("/v0/entity?id=" + id + "&ack=1&from=1"));
      assertThat(alone.statusCode()).isEqualTo(200);
      assertThat(alone.headers().firstValue(VERSION)).hasValue(Long.toString(b.engine.get(bytes(id)).version()));
    }
  }

  @Test
  void pipelinedCoordinatedRequestsAreAnsweredInOrderAndReadTheirWrites(@TempDir Path tmp) throws Exception {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16);
        Node b = Node.start(tmp.resolve("b"), portB, urls, 2_000, 16);
        RawConnection connection = a.server.connect()) {
      // Ids owned by either node: some requests are served by B's answer, some by A's.
      String mine = keyOwnedBy(a.cluster, portA);
      String theirs = keyOwnedBy(a.cluster, portB);
      connection.send(ConnectionTest.put(theirs, "1") + ConnectionTest.get(theirs) + ConnectionTest.put(mine, "2")
          + ConnectionTest.put(theirs, "3") + ConnectionTest.get(mine) + ConnectionTest.get(theirs)
          + ConnectionTest.delete(theirs) + ConnectionTest.get(theirs));
      assertThat(ConnectionTest.statusAndText(connection, 8)).containsExactly(
          "201 ", "200 1", "201 ", "201 ", "200 2", "200 3", "202 ", "404 no value for this id\n");
    }
  }

  @Test
  void badAckOrFromIs400WithTheReason(@TempDir Path tmp) {
    int portA = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + FreePort.find());
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16)) {
      assertBadRequest(a.server, "ack=0", "ack must be a positive integer");
      assertBadRequest(a.server, "ack=x", "ack must be a positive integer");
      assertBadRequest(a.server, "from=-1", "from must be a positive integer");
      assertBadRequest(a.server, "ack=2&from=1", "must not exceed from");
      assertBadRequest(a.server, "from=3", "exceeds the cluster's 2 node(s)");
      assertBadRequest(a.server, "ack=1&ack=1", "given more than once");
    }
    try (TestServer single = TestServer.start(tmp.resolve("single"))) {
      assertBadRequest(single, "from=2", "exceeds the cluster's 1 node(s)");
      assertThat(single.put(single.uri("/v0/entity?id=k&ack=1&from=1"), new byte[] {1}).statusCode()).isEqualTo(201);
    }
  }

  @Test
  void fewerThanAckAnswersIs504NamingWhatWasAskedAndGot(@TempDir Path tmp) throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
      int portA = FreePort.find();
      int nobody = FreePort.find();
      List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + blackHole.getLocalPort(),
          "http://127.0.0.1:" + nobody);
      try (Node a = Node.start(tmp.resolve("a"), portA, urls, 500, 16)) {
        HttpResponse<byte[]> put = a.server.put(a.server.uri("/v0/entity?id=k&ack=2&from=3"), new byte[] {1});
        assertThat(put.statusCode()).isEqualTo(504);
        assertThat(TestServer.text(put)).contains("2 of 3 replicas needed, 1 answered",
            "no connection to http://127.0.0.1:" + blackHole.getLocalPort() + " within 500 ms", "cannot connect to http://127.0.0.1:" + nobody);
        HttpResponse<byte[]> get = a.server.get(a.server.uri("/v0/entity?id=k&ack=3&from=3"));
        assertThat(get.statusCode()).isEqualTo(504);
        assertThat(TestServer.text(get)).contains("3 of 3 replicas needed");
      }
    }
  }

  @Test
  void theCoordinatorAnswersOnceAckReplicasDidWithoutWaitingForTheSlowest(@TempDir Path tmp) throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
      int portA = FreePort.find();
      List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + blackHole.getLocalPort());
      // The black hole would hold a request for far longer than the test client waits (30 s).
      try (Node a = Node.start(tmp.resolve("a"), portA, urls, 600_000, 16)) {
        assertThat(a.server.put(a.server.uri("/v0/entity?id=k&ack=1&from=2"), bytes("v")).statusCode()).isEqualTo(201);
        HttpResponse<byte[]> got = a.server.get(a.server.uri("/v0/entity?id=k&ack=1&from=2"));
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(bytes("v"));
      }
    }
  }

  @Test
  void readsDecidedWithoutAStalledReplicaDoNotUseUpTheConnectionsAnswerShare(@TempDir Path tmp) throws Exception {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    // B's engine holds every read of k until the test ends (longer than the client waits), so
    // B's replica answers to A's reads never come. Each read takes 2 x 64 KiB before it starts (a
    // value per replica) of a 256 KiB share and a 1 MiB budget: were that kept until B answers,
    // the reads after the first few would wait for it. A --peer-queue of 64 holds every call to
    // B, so none fails early.
    ServerOptions small = TestServer.options().withIoThreads(1).withMaxValueSizeBytes(64 << 10)
        .withInflightAnswerBytes(1 << 20);
    BlockingEngine[] stalled = new BlockingEngine[1];
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 600_000, 64, MissedWrites.NONE, small, UnaryOperator.identity());
        Node b = Node.start(tmp.resolve("b"), portB, urls, 600_000, 64, MissedWrites.NONE, TestServer.options(),
            e -> stalled[0] = new BlockingEngine(e, "k", TestServer.TIMEOUT.multipliedBy(3)))) {
      try {
        assertThat(a.server.put(a.server.uri("/v0/entity?id=k&ack=2&from=2"), bytes("v")).statusCode()).isEqualTo(201);
        for (int i = 0; i < 32; i++) {
          HttpResponse<byte[]> got = a.server.get(a.server.uri("/v0/entity?id=k&ack=1&from=2"));
          assertThat(got.statusCode()).as("GET %d", i).isEqualTo(200);
          assertThat(got.body()).isEqualTo(bytes("v"));
        }
        assertThat(stalled[0].completedGets()).as("B answered none of the reads").isZero();
      } finally {
        stalled[0].release();
      }
    }
  }

  @Test
  void pastThePeerQueueItsRepliesFailAtOnce(@TempDir Path tmp) throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
      int portA = FreePort.find();
      List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + blackHole.getLocalPort());
      // One request in flight (--peer-queue 1): of five at once, four are refused at once. (One
      // event loop: with more, each loop has its share of the queue.)
      try (Node a = Node.start(tmp.resolve("a"), portA, urls, 3_000, 1, MissedWrites.NONE, EngineOptions.defaults(),
          TestServer.options().withIoThreads(1))) {
        List<CompletableFuture<HttpResponse<byte[]>>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          calls.add(a.server.client.sendAsync(
              HttpRequest.newBuilder(a.server.entity("k" + i)).timeout(TestServer.TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofByteArray()));
        }
        List<String> answers = new ArrayList<>();
        for (var call : calls) answers.add(call.get().statusCode() + " " + TestServer.text(call.get()).trim());
        // 2/2 is decided by the first failure, whether or not the local replica answered before.
        assertThat(answers).allMatch(s -> s.startsWith("504 2 of 2 replicas needed, "));
        assertThat(answers.stream().filter(s -> s.contains("are in flight from this event loop (--peer-queue)")))
            .as("answers %s", answers).hasSize(4);
      }
    }
  }

  @Test
  void aPeerThatRefusesConnectionsFailsItsPartAndGetsHints(@TempDir Path tmp) {
    int portA = FreePort.find();
    int nobody = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + nobody);
    List<String> hints = new CopyOnWriteArrayList<>();
    MissedWrites recorder = (target, key, value, version, expiresAtMillis) ->
        hints.add(target.port() + " " + new String(key, StandardCharsets.UTF_8) + " " + (value == null ? "tombstone" : value.length));
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16, recorder, EngineOptions.defaults())) {
      HttpResponse<byte[]> first = a.server.get(a.server.entity("k"));
      assertThat(first.statusCode()).isEqualTo(504);
      assertThat(TestServer.text(first)).contains("cannot connect to http://127.0.0.1:" + nobody);
      assertThat(a.server.put(a.server.uri("/v0/entity?id=k&ack=1"), new byte[3]).statusCode()).isEqualTo(201);
      assertThat(a.server.delete(a.server.uri("/v0/entity?id=k&ack=1")).statusCode()).isEqualTo(202);
      Await.until("both hints", Duration.ofSeconds(30), () -> hints.size() == 2);
      // Kept in the background, in either order: their versions say which is newer.
      assertThat(hints).containsExactlyInAnyOrder(nobody + " k 3", nobody + " k tombstone");
      assertThat(TestServer.text(a.server.get(a.server.uri("/v0/status")))).contains("\"hintsStored\": 2");
    }
  }

  // The course's TwoNodeTest (missedDelete, missedOverwrite, missedRecreate, tolerateFailure): a
  // peer that was down and is back is used as soon as its start returned. The old client kept a
  // peer that refused a connection down for 1 s, and answered 504 "is down" meanwhile.
  @Test
  void aRestartedPeerIsUsedAsSoonAsItHasStarted(@TempDir Path tmp) {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16)) {
      Node.start(tmp.resolve("b"), portB, urls, 2_000, 16).close();
      // b is down: a's call to it is refused, which marks it down.
      URI one = a.server.uri("/v0/entity?id=while-down&ack=1&from=2");
      assertThat(a.server.put(one, bytes("v")).statusCode()).isEqualTo(201);
      try (Node b = Node.start(tmp.resolve("b"), portB, urls, 2_000, 16)) {
        for (int i = 0; i < 5; i++) {
          URI both = a.server.uri("/v0/entity?id=after-" + i + "&ack=2&from=2");
          HttpResponse<byte[]> put = a.server.put(both, bytes("a" + i));
          assertThat(put.statusCode()).as("PUT after-%d: %s", i, TestServer.text(put)).isEqualTo(201);
        }
      }
    }
  }

  // The server's connections allow half closure, so a peer's FIN alone closed nothing: every
  // connection of a peer that stopped (or stopped while it greeted) stayed open, and this node's
  // own shutdown then waited its whole drain timeout for them.
  @Test
  void aPeerThatStopsLeavesNoConnectionOpenOnTheNodesItTalkedTo(@TempDir Path tmp) {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16)) {
      assertThat(a.server.get(a.server.uri("/v0/status")).statusCode()).isEqualTo(200);
      int clients = a.server.server.openConnections(); // this test's own (kept alive)
      try (Node b = Node.start(tmp.resolve("b"), portB, urls, 2_000, 16)) {
        URI both = a.server.uri("/v0/entity?id=k&ack=2&from=2");
        assertThat(a.server.put(both, bytes("v")).statusCode()).isEqualTo(201);
        assertThat(b.server.put(b.server.uri("/v0/entity?id=k&ack=2&from=2"), bytes("w")).statusCode()).isEqualTo(201);
        assertThat(a.server.server.openConnections()).as("with b's links to a").isGreaterThan(clients);
      }
      Node.start(tmp.resolve("b"), portB, urls, 2_000, 16).close(); // stops while it greets
      Await.until("a's connections from b to close", Duration.ofSeconds(10),
          () -> a.server.server.openConnections() == clients);
    }
  }

  @Test
  void theReplicaProtocolCarriesVersionsAndTombstones(@TempDir Path tmp) throws Exception {
    try (ServerSocket blackHole = new ServerSocket(0, 64, InetAddress.getLoopbackAddress())) {
      int portA = FreePort.find();
      List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + blackHole.getLocalPort());
      try (Node a = Node.start(tmp.resolve("a"), portA, urls, 10_000, 16);
          PeerWire peer = peerOf(a)) {
        byte[] key = bytes("k");
        assertThat(peer.read(key)).as("served here, not sent to the black hole").isEqualTo(new PeerWire.Reply.Absent());
        long version = Versions.of(1_000, 3);
        assertThat(peer.write(key, bytes("v"), version)).isEqualTo(new PeerWire.Reply.Stored());
        assertValue(peer.read(key), version, bytes("v"));

        // An older record loses; the replica keeps the newer one.
        assertThat(peer.write(key, null, version - 1)).isEqualTo(new PeerWire.Reply.Stored());
        assertValue(peer.read(key), version, bytes("v"));
        assertThat(peer.write(key, null, version + 1)).isEqualTo(new PeerWire.Reply.Stored());
        assertThat(peer.read(key)).isEqualTo(new PeerWire.Reply.Tombstone(version + 1));
        assertThat(a.engine.clock().current()).as("the clock observed the versions written").isGreaterThan(version);
      }
    }
  }

  /** A peer's read of a large value is answered from the engine's memory (lent), then let go. */
  @Test
  void aReplicaReadOfALargeValueAnswersItWithItsVersionAndClosesItsLease(@TempDir Path tmp) throws Exception {
    int portA = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + FreePort.find());
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16);
        PeerWire peer = peerOf(a)) {
      byte[] value = new byte[2 << 20];
      new java.util.Random(11).nextBytes(value);
      long version = a.engine.put(bytes("k"), value);
      for (boolean inTable : new boolean[] {false, true}) {
        if (inTable) a.engine.compact();
        assertValue(peer.read(bytes("k")), version, value);
      }
      Await.until("every lease closed", TestServer.TIMEOUT, () -> a.engine.stats().valueLeases() == 0);
    }
  }

  @Test
  void aNodeThatIsNotAMemberOfTheOthersMapIsRefused(@TempDir Path tmp) {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> withB = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    List<String> withoutA = List.of("http://127.0.0.1:" + portB, "http://127.0.0.1:" + FreePort.find());
    try (Node a = Node.start(tmp.resolve("a"), portA, withB, 2_000, 16);
        Node b = Node.start(tmp.resolve("b"), portB, withoutA, 2_000, 16)) {
      HttpResponse<byte[]> response = a.server.put(a.server.entity("k"), new byte[] {1});
      assertThat(response.statusCode()).isEqualTo(504);
      assertThat(TestServer.text(response)).contains("2 of 2 replicas needed", "refused the connection",
          "is not another member of this node's cluster map");
      assertThat(b.engine.get(bytes("k"))).as("nothing stored").isNull();
    }
  }

  @Test
  void aReadOfDivergentReplicasAnswersTheNewestAndRepairsTheStaleOne(@TempDir Path tmp) {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16);
        Node b = Node.start(tmp.resolve("b"), portB, urls, 2_000, 16)) {
      long old = a.engine.clock().next();
      long newer = a.engine.clock().next();
      a.engine.write(bytes("value"), bytes("old"), old);
      b.engine.write(bytes("value"), bytes("new"), newer);
      b.engine.write(bytes("missing"), bytes("only on b"), newer);
      a.engine.write(bytes("deleted"), bytes("old"), old);
      b.engine.write(bytes("deleted"), null, newer);

      HttpResponse<byte[]> value = a.server.get(a.server.entity("value"));
      assertThat(value.statusCode()).isEqualTo(200);
      assertThat(value.body()).isEqualTo(bytes("new"));
      assertThat(a.server.get(a.server.entity("missing")).body()).isEqualTo(bytes("only on b"));
      assertThat(a.server.get(a.server.entity("deleted")).statusCode()).isEqualTo(404);

      Await.until("A repaired", Duration.ofSeconds(30), () ->
          new Entry(bytes("value"), newer, bytes("new")).equals(a.engine.get(bytes("value")))
              && new Entry(bytes("missing"), newer, bytes("only on b")).equals(a.engine.get(bytes("missing")))
              && Entry.tombstone(bytes("deleted"), newer).equals(a.engine.get(bytes("deleted"))));
      Await.until("three repairs counted", Duration.ofSeconds(30),
          () -> TestServer.text(a.server.get(a.server.uri("/v0/status"))).contains("\"readRepairs\": 3"));
    }
  }

  @Test
  void aNodeWhoseWallClockLagsCannotMakeALaterWriteLose(@TempDir Path tmp) {
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    // 20 s behind: within what the clocks of a working cluster may differ by (a replica refuses a
    // version more than HybridClock.MAX_AHEAD_MILLIS ahead of its own wall clock).
    EngineOptions lagging = EngineOptions.defaults().withEnv(Env.real().withWallClock(() -> System.currentTimeMillis() - 20_000));
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16, MissedWrites.NONE, lagging);
        Node b = Node.start(tmp.resolve("b"), portB, urls, 2_000, 16)) {
      assertThat(b.server.put(b.server.entity("k"), bytes("first")).statusCode()).isEqualTo(201);
      assertThat(a.server.put(a.server.entity("k"), bytes("second")).statusCode()).isEqualTo(201);
      assertThat(b.server.get(b.server.entity("k")).body()).isEqualTo(bytes("second"));
      // A read observes versions too: a write after it is newer than what it saw.
      b.engine.write(bytes("r"), bytes("from b"), b.engine.clock().next());
      assertThat(a.server.get(a.server.uri("/v0/entity?id=r&ack=2")).body()).isEqualTo(bytes("from b"));
      assertThat(a.server.put(a.server.uri("/v0/entity?id=r&ack=2"), bytes("from a")).statusCode()).isEqualTo(201);
      assertThat(b.server.get(b.server.entity("r")).body()).isEqualTo(bytes("from a"));
    }
  }

  @Test
  void aClientCannotChooseTheVersionOfItsWrite(@TempDir Path tmp) {
    long chosen = Versions.of(System.currentTimeMillis() + 50_000, 0);
    Engine engine = Engine.open(tmp.resolve("alone"), EngineOptions.defaults());
    try (TestServer alone = TestServer.wrap(engine, ShaleServer.start(engine, Env.real(), TestServer.options()))) {
      assertThat(alone.send(HttpRequest.newBuilder(alone.entity("k")).header(VERSION, Long.toString(chosen))
          .timeout(TestServer.TIMEOUT).PUT(HttpRequest.BodyPublishers.ofByteArray(bytes("v"))).build()).statusCode()).isEqualTo(201);
      assertThat(engine.get(bytes("k")).version()).as("the node's own version").isLessThan(chosen);
    }
    int portA = FreePort.find();
    int portB = FreePort.find();
    List<String> urls = List.of("http://127.0.0.1:" + portA, "http://127.0.0.1:" + portB);
    try (Node a = Node.start(tmp.resolve("a"), portA, urls, 2_000, 16);
        Node b = Node.start(tmp.resolve("b"), portB, urls, 2_000, 16)) {
      // The headers the internal HTTP path once read make no internal request now.
      HttpResponse<byte[]> put = a.server.send(HttpRequest.newBuilder(a.server.entity("k"))
          .header("X-Shale-Internal", "trusted").header(VERSION, Long.toString(chosen)).timeout(TestServer.TIMEOUT)
          .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes("v"))).build());
      assertThat(put.statusCode()).isEqualTo(201);
      assertThat(a.engine.get(bytes("k")).version()).as("the coordinator's version").isLessThan(chosen).isEqualTo(b.engine.get(bytes("k")).version());
    }
  }

  @Test
  void onATrustedNetworkAVersionFarAheadIsRefusedAndTheKeyStaysWritable(@TempDir Path tmp) throws Exception {
    int port = FreePort.find();
    NodeAddress other = new NodeAddress("127.0.0.1", FreePort.find());
    Topology topology = new Topology(List.of(new NodeAddress("127.0.0.1", port), other), new NodeAddress("127.0.0.1", port));
    Cluster cluster = new Cluster(new Placement(topology), InternalAuth.trustedNetwork(), 2_000, 16);
    String mine = keyOwnedBy(cluster, port); // so ack=1&from=1 below needs no other node (none runs)
    Engine engine = Engine.open(tmp, EngineOptions.defaults());
    long beyondReach = Versions.of(System.currentTimeMillis() + HybridClock.MAX_AHEAD_MILLIS + 60_000, 0);
    try (TestServer server = TestServer.wrap(engine, ShaleServer.start(engine, Env.real(), TestServer.options().withPort(port), cluster));
        PeerWire peer = PeerWire.open(port, null, other.id(), topology.self().id())) {
      for (long version : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 50, beyondReach}) {
        PeerWire.Reply forged = peer.write(bytes(mine), bytes("forged"), version);
        assertThat(forged).as("version %d", version).isInstanceOf(PeerWire.Reply.Failed.class);
        assertThat(((PeerWire.Reply.Failed) forged).code()).as("too far ahead").isEqualTo(5);
        assertThat(((PeerWire.Reply.Failed) forged).reason()).contains("ms ahead of this node's clock (at most 60000 ms): not stored");
      }
      assertThat(engine.get(bytes(mine))).isNull();
      assertThat(server.put(server.uri("/v0/entity?id=" + mine + "&ack=1&from=1"), bytes("mine")).statusCode()).isEqualTo(201);
      assertThat(server.get(server.uri("/v0/entity?id=" + mine + "&ack=1&from=1")).body()).isEqualTo(bytes("mine"));
      assertThat(engine.clock().current()).isLessThan(beyondReach);
    }
  }

  @Test
  void aNodeWithoutClusterServesInternalHeadersAsAClientsAndTakesNoPeers(@TempDir Path tmp) throws Exception {
    try (TestServer server = TestServer.start(tmp)) {
      HttpResponse<byte[]> response = server.send(HttpRequest.newBuilder(server.entity("a"))
          .header("X-Shale-Internal", "trusted").timeout(TestServer.TIMEOUT).GET().build());
      assertThat(response.statusCode()).isEqualTo(404);
      assertThat(TestServer.text(response)).contains("no value for this id");
      try (PeerWire peer = PeerWire.connect(server.port())) {
        peer.sendBytes(PeerWire.PREFACE);
        assertThat(peer.closedByNode()).isTrue();
      }
      assertThat(server.get(server.entity("a")).statusCode()).isEqualTo(404);
    }
  }

  private static void assertBadRequest(TestServer server, String params, String reason) {
    HttpResponse<byte[]> response = server.get(server.uri("/v0/entity?id=k&" + params));
    assertThat(response.statusCode()).as(params).isEqualTo(400);
    assertThat(TestServer.text(response)).as(params).contains(reason);
  }

  /** A peer connection to {@code node}, authenticated as the first other node of its list. */
  private static PeerWire peerOf(Node node) throws IOException {
    Topology topology = node.cluster.topology();
    return PeerWire.open(node.self().port(), SECRET, topology.peers().get(0).id(), node.self().id());
  }

  private static void assertValue(PeerWire.Reply reply, long version, byte[] value) {
    assertThat(reply).isInstanceOf(PeerWire.Reply.Value.class);
    assertThat(((PeerWire.Reply.Value) reply).version()).isEqualTo(version);
    assertThat(((PeerWire.Reply.Value) reply).value()).isEqualTo(value);
  }

  private static String keyOwnedBy(Cluster cluster, int port) {
    for (int i = 0; ; i++) {
      if (cluster.placement().owner(bytes("id" + i)).port() == port) return "id" + i;
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A cluster node in this JVM: an engine, a server, its cluster, and a client ({@link TestServer}).
   */
  record Node(Engine engine, TestServer server, Cluster cluster) implements AutoCloseable {
    static Node start(Path dir, int port, List<String> urls, long timeoutMillis, int pending) {
      return start(dir, port, urls, timeoutMillis, pending, MissedWrites.NONE, EngineOptions.defaults());
    }

    static Node start(Path dir, int port, List<String> urls, long timeoutMillis, int pending,
        MissedWrites missed, EngineOptions engineOptions) {
      return start(dir, port, urls, timeoutMillis, pending, missed, engineOptions, TestServer.options());
    }

    static Node start(Path dir, int port, List<String> urls, long timeoutMillis, int pending,
        MissedWrites missed, EngineOptions engineOptions, ServerOptions serverOptions) {
      return start(dir, port, urls, timeoutMillis, pending, missed, engineOptions, serverOptions, UnaryOperator.identity());
    }

    /** A node whose server uses {@code wrap} applied to its engine. */
    static Node start(Path dir, int port, List<String> urls, long timeoutMillis, int pending,
        MissedWrites missed, ServerOptions serverOptions, UnaryOperator<Engine> wrap) {
      return start(dir, port, urls, timeoutMillis, pending, missed, EngineOptions.defaults(), serverOptions, wrap);
    }

    private static Node start(Path dir, int port, List<String> urls, long timeoutMillis, int pending,
        MissedWrites missed, EngineOptions engineOptions, ServerOptions serverOptions, UnaryOperator<Engine> wrap) {
      Topology topology = Topology.fromUrls(urls, "127.0.0.1", port);
      Cluster cluster = new Cluster(new Placement(topology), InternalAuth.withSecret(SECRET, Env.real()::wallMillis), timeoutMillis, pending);
      Engine engine = Engine.open(dir, engineOptions);
      try {
        ShaleServer server = ShaleServer.start(wrap.apply(engine), Env.real(), serverOptions.withPort(port), cluster, missed);
        return new Node(engine, TestServer.wrap(engine, server), cluster);
      } catch (RuntimeException e) {
        engine.close();
        throw e;
      }
    }

    NodeAddress self() {
      return cluster.topology().self();
    }

    @Override
    public void close() {
      server.close(); // closes the engine too
    }
  }
}
