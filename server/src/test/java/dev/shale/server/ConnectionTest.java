package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HTTP/1.1 on one connection: keep-alive, pipelining, closing, malformed bytes, timeouts. */
class ConnectionTest {
  @TempDir Path dir;
  TestServer node;

  @AfterEach
  void stop() {
    if (node != null) node.close();
  }

  @Test
  void keepAliveServesManyRequestsOnOneConnection() throws Exception {
    node = TestServer.start(dir);
    try (RawConnection connection = node.connect()) {
      for (int i = 0; i < 20; i++) {
        connection.send(put("k" + i, "v" + i));
        assertThat(connection.read().status()).isEqualTo(201);
        connection.send(get("k" + i));
        assertThat(connection.read().text()).isEqualTo("v" + i);
      }
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    node = TestServer.start(dir);
    try (RawConnection connection = node.connect()) {
      connection.send(put("a", "A") + put("b", "B") + get("a") + get("b") + delete("a") + get("a") + get("b"));
      assertThat(statusAndText(connection, 7)).containsExactly(
          "201 ", "201 ", "200 A", "200 B", "202 ", "404 no value for this id\n", "200 B");
    }
  }

  @Test
  void answersKeepRequestOrderWhenALaterCallFinishesFirst() throws Exception {
    BlockingEngine[] engine = new BlockingEngine[1];
    node = TestServer.start(dir, TestServer.options().withWorkers(4), e -> engine[0] = new BlockingEngine(e, "slow"));
    node.engine.put(bytes("slow"), bytes("S"));
    node.engine.put(bytes("fast"), bytes("F"));
    try (RawConnection connection = node.connect()) {
      connection.send(get("slow") + get("fast") + get("fast"));
      engine[0].awaitBlocked();
      // Reads run side by side: the later ones complete while the first is blocked...
      Await.until("the later gets", TestServer.TIMEOUT, () -> engine[0].completedGets() == 2);
      engine[0].release();
      // ...and their answers still come after its answer.
      assertThat(statusAndText(connection, 3)).containsExactly("200 S", "200 F", "200 F");
    }
  }

  @Test
  void pipelinedWriteWaitsForEarlierReadsAndLaterReadsWaitForIt() throws Exception {
    BlockingEngine[] engine = new BlockingEngine[1];
    node = TestServer.start(dir, TestServer.options().withWorkers(4), e -> engine[0] = new BlockingEngine(e, "k"));
    node.engine.put(bytes("k"), bytes("old"));
    try (RawConnection connection = node.connect()) {
      connection.send(get("k") + put("k", "new") + get("x") + get("k"));
      engine[0].awaitBlocked();
      engine[0].release();
      // Had the PUT run while the first GET was blocked, that GET would have read "new".
      assertThat(statusAndText(connection, 4)).containsExactly("200 old", "201 ", "404 no value for this id\n", "200 new");
    }
  }

  @Test
  void manyPipelinedRequestsPastTheDepthLimitAllGetAnswers() throws Exception {
    node = TestServer.start(dir, TestServer.options().withMaxPipelinedRequests(2));
    StringBuilder requests = new StringBuilder();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      requests.append(put("k" + i, "v" + i)).append(get("k" + i));
      expected.add("201 ");
      expected.add("200 v" + i);
    }
    try (RawConnection connection = node.connect()) {
      connection.send(requests.toString());
      assertThat(statusAndText(connection, expected.size())).containsExactlyElementsOf(expected);
    }
  }

  @Test
  void manyTinyChunksMakeOneValue() throws Exception {
    node = TestServer.start(dir);
    StringBuilder request = new StringBuilder("PUT /v0/entity?id=tiny HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    StringBuilder value = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      char c = (char) ('a' + i % 26);
      request.append("1\r\n").append(c).append("\r\n");
      value.append(c);
    }
    request.append("0\r\n\r\n");
    try (RawConnection connection = node.connect()) {
      connection.send(request.toString() + get("tiny"));
      assertThat(statusAndText(connection, 2)).containsExactly("201 ", "200 " + value);
    }
  }

  @Test
  void connectionCloseIsHonoured() throws Exception {
    node = TestServer.start(dir);
    try (RawConnection connection = node.connect()) {
      connection.send("GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" + get("a"));
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.header("connection")).isEqualTo("close");
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  /**
   * RFC 9112 9.6: after a request that closes the connection, a server must not process further
   * requests. One pipelined behind it in the same write was once run, unanswered, as the
   * connection closed: a DELETE no proxy in front of the node saw.
   */
  @Test
  void aRequestPipelinedBehindAClosingOneIsNotRun() throws Exception {
    // One event loop and one worker: whatever the closed connection still ran is done before the
    // next connection's request (its accept queues behind the close on that loop, its call behind
    // any call of the closed one on that worker), so that request sees it.
    node = TestServer.start(dir, TestServer.options().withIoThreads(1).withWorkers(1));
    List<String> closers = List.of(
        "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1\r\n\r\nA",
        "DELETE /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "PUT /v0/entity?id=a HTTP/1.0\r\nContent-Length: 1\r\n\r\nA");
    for (String closer : closers) {
      node.engine.put(bytes("victim"), bytes("V"));
      try (RawConnection connection = node.connect()) {
        connection.send(closer + delete("victim") + put("planted", "P"));
        assertThat(connection.read().status()).as("answer to: %s", closer).isBetween(200, 404);
        assertThat(connection.closedByServer()).as("closed after: %s", closer).isTrue();
      }
      try (RawConnection next = node.connect()) {
        next.send(get("victim") + get("planted"));
        assertThat(statusAndText(next, 2)).as("after: %s", closer)
            .containsExactly("200 V", "404 no value for this id\n");
      }
    }
  }

  @Test
  void http10ClosesUnlessAskedToKeepAlive() throws Exception {
    node = TestServer.start(dir);
    try (RawConnection connection = node.connect()) {
      connection.send("GET /v0/status HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.header("connection")).isEqualToIgnoringCase("keep-alive");
      connection.send("GET /v0/status HTTP/1.0\r\n\r\n");
      assertThat(connection.read().status()).isEqualTo(200);
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  @Test
  void malformedRequestIs400AndCloses() throws Exception {
    node = TestServer.start(dir);
    try (RawConnection connection = node.connect()) {
      connection.send("THIS IS NOT HTTP\r\nat all\r\n\r\n");
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(400);
      assertThat(response.text()).startsWith("malformed request");
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  @Test
  void malformedChunkIs400AndCloses() throws Exception {
    node = TestServer.start(dir);
    try (RawConnection connection = node.connect()) {
      connection.send("PUT /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
      assertThat(connection.read().status()).isEqualTo(400);
      assertThat(connection.closedByServer()).isTrue();
    }
    assertThat(node.engine.get(bytes("k"))).isNull();
  }

  @Test
  void overlongRequestLineIs414AndCloses() throws Exception {
    node = TestServer.start(dir);
    try (RawConnection connection = node.connect()) {
      connection.send("GET /v0/entity?id=" + "a".repeat(ServerInitializer.MAX_REQUEST_LINE_BYTES) + " HTTP/1.1\r\n\r\n");
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(414);
      assertThat(response.text()).isNotBlank();
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  @Test
  void idleConnectionIsClosed() throws Exception {
    node = TestServer.start(dir, TestServer.options().withIdleTimeoutMillis(200));
    try (RawConnection connection = node.connect()) {
      connection.send(get("a"));
      assertThat(connection.read().status()).isEqualTo(404);
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  @Test
  void connectionWaitingForASlowAnswerIsNotIdle() throws Exception {
    BlockingEngine[] engine = new BlockingEngine[1];
    node = TestServer.start(dir, TestServer.options().withIdleTimeoutMillis(50),
        e -> engine[0] = new BlockingEngine(e, "slow"));
    try (RawConnection connection = node.connect()) {
      connection.send(get("slow"));
      engine[0].awaitBlocked();
      // A connection opened after the request went out, and closed for idleness, proves that
      // an idle period has passed for the first one too while the engine worked.
      try (RawConnection witness = node.connect()) {
        assertThat(witness.closedByServer()).isTrue();
      }
      engine[0].release();
      assertThat(connection.read().status()).isEqualTo(404);
    }
  }

  @Test
  void requestThatTricklesInIsCutWith408() throws Exception {
    node = TestServer.start(dir, TestServer.options().withRequestTimeoutMillis(200));
    try (RawConnection connection = node.connect()) {
      connection.send("PUT /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf");
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(408);
      assertThat(response.text()).contains("did not arrive");
      assertThat(connection.closedByServer()).isTrue();
    }
    assertThat(node.engine.get(bytes("k"))).isNull();
  }

  @Test
  void bodyThatStopsAfterAPipelinedRequestIsCutWith408() throws Exception {
    node = TestServer.start(dir, TestServer.options().withRequestTimeoutMillis(200));
    try (RawConnection connection = node.connect()) {
      // One write: the first request's end stops the clock its bytes started; the second's
      // body still to come must start it again.
      connection.send(get("a") + "PUT /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf");
      assertThat(connection.read().status()).isEqualTo(404);
      assertThat(connection.read().status()).isEqualTo(408);
      assertThat(connection.closedByServer()).isTrue();
    }
    assertThat(node.engine.get(bytes("k"))).isNull();
  }

  @Test
  void refusedBodyThatNeverEndsIsCutWithoutASecondAnswer() throws Exception {
    node = TestServer.start(dir, TestServer.options().withMaxValueSizeBytes(1000).withRequestTimeoutMillis(200));
    try (RawConnection connection = node.connect()) {
      connection.send("PUT /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\nstart");
      assertThat(connection.read().status()).isEqualTo(413);
      // The timeout cuts the body being dropped; a 408 would answer the same request twice.
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  @Test
  void headerThatTricklesInIsCutToo() throws Exception {
    node = TestServer.start(dir, TestServer.options().withRequestTimeoutMillis(200));
    try (RawConnection connection = node.connect()) {
      connection.send("GET /v0/entity?id=k HTTP/1.1\r\nHo");
      assertThat(connection.read().status()).isEqualTo(408);
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  static List<String> statusAndText(RawConnection connection, int count) throws Exception {
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      RawConnection.Response response = connection.read();
      answers.add(response.status() + " " + response.text());
    }
    return answers;
  }

  static String get(String id) {
    return "GET /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n";
  }

  static String delete(String id) {
    return "DELETE /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n";
  }

  static String put(String id, String value) {
    return "PUT /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
        + value.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + value;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
