package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the server refuses in a request's framing and head (RFC 9112), so that no two readers of
 * the same bytes can disagree on where a request ends: request smuggling.
 */
class HttpFramingTest {
  // A whole request, to be sent as the body of another: if it ever runs, the framing was wrong.
  static final String SMUGGLED = ConnectionTest.put("smuggled", "evil");

  @TempDir Path dir;
  TestServer node;

  @BeforeEach
  void start() {
    node = TestServer.start(dir);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "identity", "xchunked", "\"chunked\"", "chunked;q=1", "chunked, identity", "chunked, chunked", "",
      "chunked\r\nTransfer-Encoding: xchunked", "chunked\r\nTransfer-Encoding: chunked"})
  void transferEncodingWhoseLastCodingIsNotChunkedIs400AndCloses(String codings) throws Exception {
    assertRefusedAndClosed(400, "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + codings
        + "\r\nContent-Length: " + SMUGGLED.length() + "\r\n\r\n" + SMUGGLED);
    assertRefusedAndClosed(400, "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + codings
        + "\r\n\r\n" + SMUGGLED);
    assertNothingStored("a");
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip, chunked", "deflate,chunked", "x-custom, chunked"})
  void unknownCodingBeforeChunkedIs501AndCloses(String codings) throws Exception {
    assertRefusedAndClosed(501, "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + codings
        + "\r\n\r\n4\r\nabcd\r\n0\r\n\r\n" + SMUGGLED);
    assertNothingStored("a");
  }

  @Test
  void contentLengthWithChunkedIs400AndCloses() throws Exception {
    assertRefusedAndClosed(400, "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n" + SMUGGLED);
    assertNothingStored("a");
  }

  @ParameterizedTest
  @ValueSource(strings = {"Content-Length: 4\r\nContent-Length: 5", "Content-Length: 4, 5", "Content-Length: 4\r\nContent-Length: 4"})
  void repeatedContentLengthIs400AndCloses(String lengths) throws Exception {
    assertRefusedAndClosed(400, "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n" + lengths + "\r\n\r\nabcde" + SMUGGLED);
    assertNothingStored("a");
  }

  @Test
  void repeatedContentLengthIs400InHttp10Too() throws Exception {
    // Netty alone used the first one there: the body then ran as a request.
    assertRefusedAndClosed(400, "PUT /v0/entity?id=a HTTP/1.0\r\nContent-Length: 0\r\nContent-Length: " + SMUGGLED.length()
        + "\r\n\r\n" + SMUGGLED);
    assertNothingStored("a");
  }

  @ParameterizedTest
  @ValueSource(strings = {"PUT\u0000", "DELETE\r", "PUT\u000b", "PUT\u000c", "PUT\t", "PUT "})
  void controlBytesOrExtraSpaceInTheRequestLineAre400AndNotRun(String method) throws Exception {
    node.engine.put(ConnectionTest.bytes("a"), ConnectionTest.bytes("kept"));
    String rest = " /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nevil";
    assertRefusedAndClosed(400, method + rest);
    assertRefusedAndClosed(400, "PUT /v0/entity?id=a" + method.replace("PUT", "").replace("DELETE", "") + " HTTP/1.1\r\n"
        + "Host: x\r\nContent-Length: 4\r\n\r\nevil");
    assertThat(node.engine.get(ConnectionTest.bytes("a")).value()).isEqualTo(ConnectionTest.bytes("kept"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"HTTP/2.0", "HTTP/9.9", "HTTP/1.2", "HTTP/0.9"})
  void unsupportedVersionIs505AndCloses(String version) throws Exception {
    assertRefusedAndClosed(505, "PUT /v0/entity?id=a " + version + "\r\nHost: x\r\nContent-Length: 4\r\n\r\nevil");
    assertNothingStored("a");
  }

  @ParameterizedTest
  @ValueSource(strings = {"http/1.1", "Http/1.1", "HTTP/1.1x", "HTTP/11", "HTTP /1.1"})
  void malformedVersionIs400AndCloses(String version) throws Exception {
    assertRefusedAndClosed(400, "PUT /v0/entity?id=a " + version + "\r\nHost: x\r\nContent-Length: 4\r\n\r\nevil");
    assertNothingStored("a");
  }

  /**
   * RFC 9112 2.2: before a request line a server may skip empty lines (CRLF), nothing else. Other
   * bytes there (NUL, controls, spaces) were skipped too: a proxy that reads them otherwise would
   * disagree on where the request starts.
   */
  @ParameterizedTest
  @ValueSource(strings = {"\u0000\u0001\u0002", " ", "\t", "\u000b", "\r\n\u007f", "\r\n \r\n"})
  void bytesOtherThanEmptyLinesBeforeTheRequestLineAre400(String before) throws Exception {
    assertRefusedAndClosed(400, before + "PUT /v0/entity?id=smuggled HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nS");
  }

  @Test
  void emptyLinesBeforeARequestLineAreSkipped() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send("\r\n\r\nPUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nA"
          + "\r\nGET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(connection.read().status()).isEqualTo(201);
      assertThat(connection.read().text()).isEqualTo("A");
    }
  }

  @Test
  void junkBetweenTwoRequestsIs400AfterTheFirstIsAnswered() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n\u0000PUT /v0/entity?id=smuggled HTTP/1.1\r\n"
          + "Host: x\r\nContent-Length: 1\r\n\r\nS");
      assertThat(connection.read().status()).isEqualTo(200);
      assertThat(connection.read().status()).isEqualTo(400);
      assertThat(connection.closedByServer()).isTrue();
    }
    assertNothingStored("smuggled");
  }

  @Test
  void http11WithoutHostIs400() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send("PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: 4\r\n\r\nevil" + ConnectionTest.get("a"));
      assertThat(connection.read().status()).isEqualTo(400);
      // The framing was sound: the connection stays usable.
      assertThat(connection.read().status()).isEqualTo(404);
    }
  }

  @Test
  void twoHostsAre400() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send("PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nHost: y\r\nContent-Length: 4\r\n\r\nevil");
      assertThat(connection.read().status()).isEqualTo(400);
      connection.send("GET /v0/entity?id=a HTTP/1.0\r\nHost: x\r\nHost: x\r\n\r\n");
      assertThat(connection.read().status()).isEqualTo(400);
    }
    assertNothingStored("a");
  }

  @Test
  void http10WithoutHostIsServed() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send("PUT /v0/entity?id=a HTTP/1.0\r\nContent-Length: 2\r\n\r\nok");
      assertThat(connection.read().status()).isEqualTo(201);
    }
  }

  @Test
  void answerToHeadHasNoBodySoTheNextAnswerFollowsIt() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send("HEAD /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n" + ConnectionTest.get("a"));
      String head = readHead(connection);
      assertThat(head).startsWith("HTTP/1.1 405").contains("content-length: ");
      assertThat(connection.read().status()).isEqualTo(404);
    }
  }

  @Test
  void expectationOtherThanContinueIs417() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send(BodyLimitTest.putHead("a", 4, "Expect: 200-ok\r\n") + "evil" + ConnectionTest.get("a"));
      assertThat(connection.read().status()).isEqualTo(417);
      assertThat(connection.read().status()).isEqualTo(404);
    }
  }

  @Test
  void putWithoutALengthIs411AndCloses() throws Exception {
    assertRefusedAndClosed(411, "PUT /v0/entity?id=a HTTP/1.0\r\n\r\nbody until the end");
    assertRefusedAndClosed(411, "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n" + SMUGGLED);
    assertNothingStored("a");
  }

  private void assertRefusedAndClosed(int status, String request) throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send(request.getBytes(StandardCharsets.ISO_8859_1));
      RawConnection.Response response = connection.read();
      assertThat(response.status()).as(response.text()).isEqualTo(status);
      assertThat(response.header("connection")).isEqualTo("close");
      assertThat(connection.closedByServer()).isTrue();
    }
    assertNothingStored("smuggled");
  }

  private static String readHead(RawConnection connection) throws java.io.IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) head.append((char) connection.input().read());
    return head.toString();
  }

  private void assertNothingStored(String id) {
    assertThat(node.engine.get(ConnectionTest.bytes(id))).isNull();
  }
}
