package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The value size limit (413), the body budget (503) and 100-continue. */
class BodyLimitTest {
  static final int LIMIT = 64 * 1024;

  @TempDir Path dir;
  TestServer node;

  @BeforeEach
  void start() {
    // The budget holds exactly one body of the largest size (a chunked one counts twice).
    node = TestServer.start(dir, TestServer.options().withMaxValueSizeBytes(LIMIT).withInflightBodyBytes(2L * LIMIT));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void valueOverTheLimitWithContentLengthIs413AndNotStored() {
    HttpResponse<byte[]> response = node.put(node.entity("big"), new byte[LIMIT + 1]);
    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(TestServer.text(response)).contains(String.valueOf(LIMIT));
    assertThat(node.get(node.entity("big")).statusCode()).isEqualTo(404);
  }

  @Test
  void chunkedValueOverTheLimitIs413AndNotStored() {
    HttpResponse<byte[]> response = node.putChunked(node.entity("big"), new byte[3 * LIMIT]);
    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(node.get(node.entity("big")).statusCode()).isEqualTo(404);
  }

  @Test
  void valueOfExactlyTheLimitIsStoredEitherWay() {
    byte[] value = new byte[LIMIT];
    value[LIMIT - 1] = 7;
    assertThat(node.put(node.entity("a"), value).statusCode()).isEqualTo(201);
    assertThat(node.putChunked(node.entity("b"), value).statusCode()).isEqualTo(201);
    assertThat(node.get(node.entity("a")).body()).isEqualTo(value);
    assertThat(node.get(node.entity("b")).body()).isEqualTo(value);
  }

  @Test
  void a413ClosesTheConnectionAfterItsAnswer() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send(putHead("big", LIMIT + 1));
      connection.send(new byte[LIMIT + 1]);
      connection.send(putHead("small", 2) + "ok");
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(413);
      assertThat(response.header("connection")).isEqualTo("close");
      assertThat(connection.closedByServer()).isTrue();
    }
    assertThat(node.get(node.entity("small")).statusCode()).isEqualTo(404);
  }

  @Test
  void chunkedOverTheLimitIs413AndCloses() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
      String chunk = Integer.toHexString(LIMIT) + "\r\n" + "x".repeat(LIMIT) + "\r\n";
      connection.send(chunk + chunk + "0\r\n\r\n");
      connection.send("GET /v0/entity?id=big HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(connection.read().status()).isEqualTo(413);
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  @Test
  void expectContinueGets100ThenTheAnswer() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send(putHead("k", 5, "Expect: 100-continue\r\n"));
      assertThat(connection.read().status()).isEqualTo(100);
      connection.send("hello");
      assertThat(connection.read().status()).isEqualTo(201);
    }
    assertThat(node.get(node.entity("k")).body()).isEqualTo("hello".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void expectContinueOverTheLimitIs413WithoutTheBodyAndCloses() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send(putHead("k", LIMIT + 1, "Expect: 100-continue\r\n"));
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(413);
      assertThat(response.header("connection")).isEqualTo("close");
      assertThat(connection.closedByServer()).isTrue();
    }
  }

  @Test
  void bodyOverTheBudgetIs503WithRetryAfterUntilTheBudgetFrees() throws Exception {
    try (RawConnection holder = node.connect(); RawConnection other = node.connect()) {
      // A body of up to 64 KiB reserves its whole length with its first byte: two of them fill
      // the budget until they arrive.
      startBody(other, "other-holder");
      startBody(holder, "holder");
      Await.until("the holders' first bytes reserved their bodies", TestServer.TIMEOUT,
          () -> node.put(node.entity("probe"), new byte[10]).statusCode() == 503);

      HttpResponse<byte[]> refused = node.put(node.entity("other"), new byte[10]);
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      assertThat(node.get(node.entity("other")).statusCode()).isEqualTo(404);

      holder.send(new byte[LIMIT - 1]);
      assertThat(holder.read().status()).isEqualTo(201);
      other.send(new byte[LIMIT - 1]);
      assertThat(other.read().status()).isEqualTo(201);
    }
    // The storage call's end gives the budget back, just before the answer is written.
    Await.until("budget released", TestServer.TIMEOUT, () -> node.put(node.entity("other"), new byte[10]).statusCode() == 201);
  }

  @Test
  void requestsWithoutBodiesNeedNoBudget() throws Exception {
    try (RawConnection holder = node.connect(); RawConnection other = node.connect()) {
      startBody(other, "other-holder");
      startBody(holder, "holder");
      Await.until("the holders' first bytes reserved their bodies", TestServer.TIMEOUT,
          () -> node.put(node.entity("probe"), new byte[10]).statusCode() == 503);
      assertThat(node.get(node.entity("x")).statusCode()).isEqualTo(404);
      assertThat(node.delete(node.entity("x")).statusCode()).isEqualTo(202);
      assertThat(node.put(node.entity("x"), new byte[0]).statusCode()).isEqualTo(201);
    }
  }

  /**
   * Issue 35, B: heads that declare large bodies and send none held the whole budget (reserved at
   * the head, for any method), and every other client's PUT got 503 until their 408. Now a head
   * holds nothing, and a request that cannot have a body is refused at its head.
   */
  @Test
  void headsThatDeclareBodiesAndSendNoneHoldNoBudget() throws Exception {
    List<RawConnection> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        RawConnection connection = node.connect();
        idle.add(connection);
        connection.send(putHead("idle" + i, LIMIT));
      }
      for (int i = 0; i < 4; i++) {
        try (RawConnection get = node.connect()) {
          get.send("GET /nothing HTTP/1.1\r\nHost: x\r\nContent-Length: 16777216\r\n\r\n");
          RawConnection.Response refused = get.read();
          assertThat(refused.status()).isEqualTo(400);
          assertThat(refused.text()).contains("a GET request has no body here");
          assertThat(get.closedByServer()).isTrue();
        }
      }
      HttpResponse<byte[]> put = node.put(node.entity("other"), new byte[LIMIT]);
      assertThat(put.statusCode()).as(TestServer.text(put)).isEqualTo(201);
      // The idle ones still complete once their bodies come.
      for (int i = 0; i < 4; i++) {
        idle.get(i).send(new byte[LIMIT]);
        assertThat(idle.get(i).read().status()).isEqualTo(201);
      }
    } finally {
      for (RawConnection connection : idle) connection.close();
    }
  }

  /**
   * A body gathered in blocks (chunked, or longer than 64 KiB) counts twice its bytes until it
   * is whole: its blocks and the array they are joined into are on the heap together then. Counted
   * once, two 16 MiB bodies took twice the budget of a 128 MiB heap, and with a flush's copy of a
   * value the node ran out of memory (UnsentBodiesTest, in CI).
   */
  @Test
  void aChunkedBodyCountsTwiceUntilItIsWhole() throws Exception {
    int sent = LIMIT / 2 + 1024;
    RawConnection[] chunked = {startChunkedBody(sent)};
    try {
      // Twice its bytes are more than the budget leaves for a body of the largest size. A probe
      // still being received when the chunked bytes came held the budget first, and the chunked
      // request was refused (503, then closed): the budget at work, not the case under test; it
      // is sent again (this race failed the test now and then).
      Await.until("the chunked body's bytes reserved twice", TestServer.TIMEOUT, () -> {
        if (node.put(node.entity("probe"), new byte[LIMIT]).statusCode() == 503) return true;
        try {
          if (chunked[0].input().available() > 0) {
            chunked[0].close();
            chunked[0] = startChunkedBody(sent);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        return false;
      });
      chunked[0].send("0\r\n\r\n");
      assertThat(chunked[0].read().status()).isEqualTo(201);
    } finally {
      chunked[0].close();
    }
    // Whole, it counts once; stored, not at all.
    Await.until("the budget freed", TestServer.TIMEOUT,
        () -> node.put(node.entity("probe"), new byte[LIMIT]).statusCode() == 201);
    assertThat(node.get(node.entity("chunked")).body()).hasSize(sent);
  }

  // A chunked PUT of key "chunked" whose first chunk, of `sent` bytes, is sent whole; its last is not.
  private RawConnection startChunkedBody(int sent) throws IOException {
    RawConnection connection = node.connect();
    connection.send("PUT /v0/entity?id=chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        + Integer.toHexString(sent) + "\r\n");
    connection.send(new byte[sent]);
    connection.send("\r\n");
    return connection;
  }

  // Sends the head of a body of the largest size and its first byte, which reserves its length.
  private static void startBody(RawConnection connection, String id) throws Exception {
    connection.send(putHead(id, LIMIT, "Expect: 100-continue\r\n"));
    assertThat(connection.read().status()).isEqualTo(100);
    connection.send(new byte[1]);
  }

  static String putHead(String id, int length) {
    return putHead(id, length, "");
  }

  static String putHead(String id, int length, String extraHeaders) {
    return "PUT /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n"
        + extraHeaders + "\r\n";
  }
}
