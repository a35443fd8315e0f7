package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.testkit.TestSeed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded HTTP fuzzing over raw sockets against a real server: malformed request lines, methods
 * with control bytes, versions, odd and repeated headers, Content-Length and Transfer-Encoding
 * combinations, bad chunk framing, bad ids, pipelined sequences, truncated requests and
 * half-closes. Every answer must be a well-formed response with a documented status, every
 * connection must get its answers and then a clean close (no reset, no hang), and stored data
 * must be untouched: the keys stored before keep their values, and no key appears that the
 * fuzzer did not name in a request of its own ({@code fz-}); requests hidden in bodies
 * ({@code smug-}, or aimed at the keys stored before) must never run.
 * Replay a run with {@code -Dshale.seed=N}.
 */
class HttpFuzzTest {
  static final int CONNECTIONS = 800;
  static final int KNOWN_KEYS = 20;
  static final int MAX_VALUE_BYTES = 4096;
  static final Set<Integer> DOCUMENTED = Set.of(100, 200, 201, 202, 400, 404, 405, 408, 411, 413, 414, 417, 431, 501, 503, 505);

  @TempDir Path dir;

  @Test
  void everyAnswerIsDocumentedAndStoredDataIsUntouched() throws Exception {
    Random random = new Random(TestSeed.forTest("HttpFuzzTest"));
    ServerOptions options = TestServer.options().withMaxValueSizeBytes(MAX_VALUE_BYTES).withRequestTimeoutMillis(300);
    try (TestServer node = TestServer.start(dir, options)) {
      for (int i = 0; i < KNOWN_KEYS; i++) {
        assertThat(node.put(node.entity("known-" + i), bytes("value-" + i)).statusCode()).isEqualTo(201);
      }
      RequestGenerator generator = new RequestGenerator(random);
      for (int c = 0; c < CONNECTIONS; c++) {
        List<byte[]> requests = new ArrayList<>();
        int count = 1 + random.nextInt(4);
        for (int r = 0; r < count; r++) requests.add(generator.next());
        exchange(node, random, requests, c);
      }
      for (int i = 0; i < KNOWN_KEYS; i++) {
        Entry known = node.engine.get(bytes("known-" + i));
        assertThat(known).as("known-%d", i).isNotNull();
        assertThat(known.value()).as("known-%d", i).isEqualTo(bytes("value-" + i));
      }
      try (EntryIterator all = node.engine.scan(new byte[0], null, false)) {
        while (all.hasNext()) {
          String key = new String(all.next().key(), StandardCharsets.UTF_8);
          assertThat(key.startsWith("known-") || key.startsWith("fz-")).as("stored key '%s'", key).isTrue();
        }
      }
    }
  }

  /** Sends {@code requests} on one connection, split at random points, then reads to the end. */
  private static void exchange(TestServer node, Random random, List<byte[]> requests, int index) throws IOException {
    boolean halfClose = random.nextInt(4) != 0;
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    for (byte[] request : requests) wire.writeBytes(request);
    if (!halfClose) wire.writeBytes(bytes("GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    byte[] bytes = wire.toByteArray();
    String what = "connection " + index + " sending [" + printable(bytes) + "]";
    try (RawConnection connection = node.connect()) {
      try {
        for (int at = 0; at < bytes.length; ) {
          int n = Math.min(bytes.length - at, 1 + random.nextInt(Math.max(1, bytes.length / 2)));
          connection.socket().getOutputStream().write(bytes, at, n);
          at += n;
        }
        connection.socket().getOutputStream().flush();
        if (halfClose) connection.socket().shutdownOutput();
      } catch (SocketException e) {
        // The server refused early and closed while we were still sending: its answer is still to be read.
      }
      readUntilClosed(connection, what);
    }
  }

  private static void readUntilClosed(RawConnection connection, String what) throws IOException {
    InputStream in = connection.input();
    for (int answers = 0; ; answers++) {
      in.mark(1);
      int first;
      try {
        first = in.read();
      } catch (java.net.SocketTimeoutException e) {
        throw new AssertionError(what + ": neither answer nor close after " + answers + " answers", e);
      } catch (SocketException e) {
        throw new AssertionError(what + ": reset after " + answers + " answers: " + e);
      }
      if (first < 0) return; // a clean close between answers
      in.reset();
      RawConnection.Chunked answer;
      try {
        answer = connection.readChunked();
      } catch (IOException e) {
        throw new AssertionError(what + ": answer " + answers + " is not HTTP: " + e, e);
      }
      assertThat(answer.complete()).as(what).isTrue();
      assertThat(DOCUMENTED).as(what + ": answer " + answers + " status").contains(answer.status());
    }
  }

  /** Requests, well-formed or not; only well-formed writes name {@code fz-} ids. */
  static final class RequestGenerator {
    private static final String[] CODINGS = {
        "identity", "xchunked", "\"chunked\"", "chunked;q=1", "chunked, identity", "gzip, chunked", "chunked, chunked",
        "Chunked", "chunked\r\nTransfer-Encoding: xchunked", "", " chunked"};
    private static final String[] METHOD_SEPARATORS = {"\u0000 ", "\r ", "\u000b ", "\u000c ", "\t", "  ", " \u0000"};
    private static final String[] VERSIONS = {"HTTP/2.0", "HTTP/9.9", "http/1.1", "HTTP/1.1 ", "HTTP/1", "HTTP/1.10", "HTTP/0.9", "HTTP/1.0"};
    private static final String[] HEADERS = {
        "", "Host: y\r\n", "Expect: 100-continue\r\n", "Expect: nothing\r\n", "X: a\r\n b\r\n", "NoColon\r\n", "Bad Name: v\r\n",
        "Content-Type: text/plain\r\n", "Connection: close\r\n", "X-Long: " + "a".repeat(9000) + "\r\n", "Trailer: x\r\n"};
    private static final String[] IDS = {"%zz", "%c3", "%ff%fe", "a%00b", "", "%", "x".repeat(1025), "%C3%A9", "\u00ff"};

    private final Random random;
    private int serial;

    RequestGenerator(Random random) {
      this.random = random;
    }

    byte[] next() {
      serial++;
      return bytes(switch (random.nextInt(12)) {
        case 0 -> put("fz-" + serial, value(), "");
        case 1 -> "GET /v0/entity?id=" + pick("fz-" + random.nextInt(serial), "known-" + random.nextInt(KNOWN_KEYS)) + " HTTP/1.1\r\nHost: x\r\n\r\n";
        case 2 -> "DELETE /v0/entity?id=fz-" + random.nextInt(serial) + " HTTP/1.1\r\nHost: x\r\n\r\n";
        case 3 -> smuggleByCoding();
        case 4 -> smuggleByLengths();
        case 5 -> pick("PUT", "DELETE", "GET") + pick(METHOD_SEPARATORS) + "/v0/entity?id=fz-" + serial + " HTTP/1.1\r\nHost: x\r\n"
            + "Content-Length: 3\r\n\r\nabc";
        case 6 -> "PUT /v0/entity?id=fz-" + serial + " " + pick(VERSIONS) + "\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
        case 7 -> oddHeaders();
        case 8 -> "PUT /v0/entity?id=fz-" + serial + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + badChunks();
        case 9 -> pick("GET", "PUT", "DELETE") + " /v0/entity?id=fz-" + pick(IDS) + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv";
        case 10 -> truncated(put("fz-" + serial, value(), ""));
        // No HEAD: its answer has a Content-Length and no body, which this reader cannot tell (HttpFramingTest has it).
        default -> pick("POST", "OPTIONS", "TRACE", "CONNECT", "G\u00e9T") + " " + pick("/v0/entity?id=fz-1", "/", "*", "/v0/status",
            "/v0/admin/compactx", "/../etc") + " HTTP/1.1\r\nHost: x\r\n\r\n";
      });
    }

    /** A request whose body holds a whole request: it runs only if the framing is misread. */
    private String smuggleByCoding() {
      String hidden = hiddenRequest();
      String head = "PUT /v0/entity?id=fz-" + serial + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + pick(CODINGS) + "\r\n";
      if (random.nextBoolean()) return head + "Content-Length: " + hidden.length() + "\r\n\r\n" + hidden;
      return head + "\r\n" + Integer.toHexString(hidden.length()) + "\r\n" + hidden + "\r\n0\r\n\r\n";
    }

    private String smuggleByLengths() {
      String hidden = hiddenRequest();
      String lengths = pick("Content-Length: 0\r\nContent-Length: " + hidden.length(), "Content-Length: " + hidden.length() + ", 0",
          "Content-Length: +" + hidden.length(), "Content-Length: " + hidden.length() + "\r\nTransfer-Encoding: chunked",
          "Content-Length: 0x" + Integer.toHexString(hidden.length()), "Content-Length:  " + hidden.length() + " ");
      return "PUT /v0/entity?id=fz-" + serial + " HTTP/" + pick("1.1", "1.0") + "\r\nHost: x\r\n" + lengths + "\r\n\r\n" + hidden;
    }

    private String hiddenRequest() {
      String target = random.nextBoolean() ? "smug-" + serial : "known-" + random.nextInt(KNOWN_KEYS);
      return pick("PUT /v0/entity?id=" + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nevil",
          "DELETE /v0/entity?id=" + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
    }

    private String oddHeaders() {
      String value = value();
      return "PUT /v0/entity?id=fz-" + serial + " HTTP/1.1\r\n" + (random.nextInt(4) == 0 ? "" : "Host: x\r\n") + pick(HEADERS)
          + "Content-Length: " + value.length() + "\r\n\r\n" + value;
    }

    private String badChunks() {
      return pick("zz\r\nabc\r\n0\r\n\r\n", "3\r\nabcdef\r\n0\r\n\r\n", "ffffffffffffffffff\r\na\r\n", "3;ext=1\r\nabc\r\n0\r\n\r\n",
          "3\nabc\n0\n\n", "-1\r\na\r\n", "3\r\nabc", "0\r\nX-Trailer: t\r\n\r\n", "1000\r\n" + "a".repeat(5000) + "\r\n0\r\n\r\n");
    }

    private String truncated(String request) {
      return request.substring(0, random.nextInt(request.length()));
    }

    private String put(String id, String value, String extraHeaders) {
      return "PUT /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n" + extraHeaders + "Content-Length: "
          + value.length() + "\r\n\r\n" + value;
    }

    private String value() {
      return "v".repeat(random.nextInt(2) == 0 ? random.nextInt(10) : random.nextInt(2 * MAX_VALUE_BYTES));
    }

    @SafeVarargs
    private <T> T pick(T... choices) {
      return choices[random.nextInt(choices.length)];
    }
  }

  /** The bytes sent, control bytes escaped; a long run of one byte (a value) is shortened. */
  private static String printable(byte[] bytes) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < bytes.length; i++) {
      int run = 1;
      while (i + run < bytes.length && bytes[i + run] == bytes[i]) run++;
      int b = bytes[i] & 0xff;
      String one = b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b);
      text.append(run > 8 ? one + "{" + run + "}" : one.repeat(run));
      i += run - 1;
    }
    return text.toString();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }
}
