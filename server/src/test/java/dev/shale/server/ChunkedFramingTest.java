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
 * A chunked body is read strictly (RFC 9112 section 7.1): {@code chunk-size [chunk-ext] CRLF},
 * the size 1*HEXDIG, extensions of tokens and quoted strings, each chunk's data followed by CRLF,
 * then a well-formed, bounded trailer section. Netty read {@code " 5"}, {@code "5 garbage"} and
 * {@code "5\x00zz"} as 5: a proxy reading the same bytes otherwise would delimit the body
 * elsewhere. Every malformed body is 400 with one line and a close; nothing is stored; other
 * connections are unharmed.
 */
class ChunkedFramingTest {
  private static final String HEAD = "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";

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

  /** Chunk-size lines that are not {@code 1*HEXDIG [chunk-ext]}: each was read as 5 before. */
  @ParameterizedTest
  @ValueSource(strings = {" 5", "5 garbage", "5\u0000zz", "\t5", "5 ", "5\t", "5 5", "5\u000b", "5 =x"})
  void chunkSizeLineThatIsNotStrictIs400AndCloses(String sizeLine) throws Exception {
    assertRefusedAndClosed(HEAD + sizeLine + "\r\nhello\r\n0\r\n\r\n" + HttpFramingTest.SMUGGLED);
  }

  /** Chunk extensions that are not {@code *( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] )}. */
  @ParameterizedTest
  @ValueSource(strings = {
      "5;", "5;=v", "5;a=", "5;a b", "5;a=\"open", "5;a=\"x\"y", "5;a=b c", "5;a=\"\u0001\"", "5;a=v;", "5;a@b",
      "5;a=\"x\\\""})
  void malformedChunkExtensionIs400AndCloses(String sizeLine) throws Exception {
    assertRefusedAndClosed(HEAD + sizeLine + "\r\nhello\r\n0\r\n\r\n" + HttpFramingTest.SMUGGLED);
  }

  /** The last chunk's line is held to the same grammar. */
  @ParameterizedTest
  @ValueSource(strings = {" 0", "0 x", "0\u0000", "0 "})
  void lastChunkLineThatIsNotStrictIs400AndCloses(String lastLine) throws Exception {
    assertRefusedAndClosed(HEAD + "5\r\nhello\r\n" + lastLine + "\r\n\r\n" + HttpFramingTest.SMUGGLED);
  }

  /** A size past what the server could ever take, or a line without end, is 400 too. */
  @ParameterizedTest
  @ValueSource(strings = {"80000000", "ffffffffffffffffff", "10000000000000000000000000000000000000000"})
  void overflowingChunkSizeIs400AndCloses(String size) throws Exception {
    assertRefusedAndClosed(HEAD + size + "\r\nhello\r\n0\r\n\r\n");
  }

  @Test
  void chunkSizeLineLongerThanTheLimitIs400AndCloses() throws Exception {
    assertRefusedAndClosed(HEAD + "5;" + "a".repeat(9000) + "\r\nhello\r\n0\r\n\r\n");
  }

  /** Trailer fields are {@code token ":" OWS field-value OWS}, no folding, at most 8 KiB in all. */
  @ParameterizedTest
  @ValueSource(strings = {
      "no colon\r\n", " X: folded\r\n", "X: a\r\n continued\r\n", "X : space before colon\r\n", ": no name\r\n",
      "X: a\u0000b\r\n", "X\u0001: y\r\n", "X: a\nY: b\r\n"})
  void malformedTrailerIs400AndCloses(String trailer) throws Exception {
    assertRefusedAndClosed(HEAD + "5\r\nhello\r\n0\r\n" + trailer + "\r\n" + HttpFramingTest.SMUGGLED);
  }

  @Test
  void trailerSectionOverTheLimitIs400AndCloses() throws Exception {
    StringBuilder trailers = new StringBuilder();
    for (int i = 0; i < 200; i++) trailers.append("X-T").append(i).append(": ").append("v".repeat(60)).append("\r\n");
    assertRefusedAndClosed(HEAD + "5\r\nhello\r\n0\r\n" + trailers + "\r\n");
  }

  @Test
  void dataNotFollowedByCrlfIs400AndCloses() throws Exception {
    assertRefusedAndClosed(HEAD + "5\r\nhelloXX\r\n0\r\n\r\n" + HttpFramingTest.SMUGGLED);
    assertRefusedAndClosed(HEAD + "5\nhello\r\n0\r\n\r\n" + HttpFramingTest.SMUGGLED);
  }

  /** What the grammar allows is still read, and the next request on the connection follows it. */
  @ParameterizedTest
  @ValueSource(strings = {
      "5\r\nhello\r\n", "5;ext\r\nhello\r\n", "5 ; a = b\r\nhello\r\n", "5;a=\"q; \\\"x\\\" \t\"\r\nhello\r\n",
      "5;a=b;c;d=\"\"\r\nhello\r\n", "00000005\r\nhello\r\n", "2\r\nhe\r\n3;x=1\r\nllo\r\n"})
  void validChunkLinesAreRead(String chunks) throws Exception {
    assertStored(HEAD + chunks + "0\r\n\r\n", "hello");
  }

  @Test
  void hexDigitsOfEitherCaseAndLastChunkExtensionsAndTrailersAreRead() throws Exception {
    String ten = "0123456789";
    assertStored(HEAD + "A\r\n" + ten + "\r\n0;done=\"yes\"\r\n\r\n", ten);
    assertStored(HEAD + "a\r\n" + ten + "\r\n000\r\nX-Checksum: abc\r\nX-Empty:\r\nX-Ows: \t v w \t\r\n\r\n", ten);
    String big = "x".repeat(0x1f3);
    assertStored(HEAD + "1F3\r\n" + big + "\r\n0\r\n\r\n", big);
  }

  /** Lines, data and CRLFs cut anywhere: a line waits for its end, data goes on as it comes. */
  @Test
  void bodySentOneByteAtATimeIsRead() throws Exception {
    String request = HEAD + "5;a=\"b\"\r\nhel\r\n\r\n0003\r\nl\r\n\r\n0\r\nX-T: v\r\n\r\n";
    try (RawConnection connection = node.connect()) {
      for (byte b : request.getBytes(StandardCharsets.ISO_8859_1)) connection.send(new byte[] {b});
      RawConnection.Response response = connection.read();
      assertThat(response.status()).as(response.text()).isEqualTo(201);
    }
    assertThat(node.engine.get(ConnectionTest.bytes("a")).value()).isEqualTo(ConnectionTest.bytes("hel\r\nl\r\n"));
  }

  private void assertStored(String request, String value) throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send((request + "GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
      RawConnection.Response put = connection.read();
      assertThat(put.status()).as(put.text()).isEqualTo(201);
      RawConnection.Response get = connection.read();
      assertThat(get.status()).isEqualTo(200);
      assertThat(get.text()).isEqualTo(value);
    }
  }

  private void assertRefusedAndClosed(String request) throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send(request.getBytes(StandardCharsets.ISO_8859_1));
      RawConnection.Response response = connection.read();
      assertThat(response.status()).as(response.text()).isEqualTo(400);
      assertThat(response.text().strip()).doesNotContain("\n").isNotEmpty();
      assertThat(response.header("connection")).isEqualTo("close");
      assertThat(connection.closedByServer()).isTrue();
    }
    assertThat(node.engine.get(ConnectionTest.bytes("a"))).isNull();
    assertThat(node.engine.get(ConnectionTest.bytes("smuggled"))).isNull();
    // Another connection is served as before.
    try (RawConnection other = node.connect()) {
      other.send(ConnectionTest.put("other", "fine"));
      assertThat(other.read().status()).isEqualTo(201);
    }
  }
}
