package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Keys;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /v0/entities}: the range, the chunk format, the refusals, pipelining. */
class ScanApiTest {
  @TempDir Path dir;
  private TestServer server;

  @BeforeEach
  void start() {
    server = TestServer.start(dir);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void startIsInclusiveEndExclusiveAndEachEntryIsOneChunk() throws IOException {
    // Stored in reverse order, around the bounds: "b" is in, "b\0"-like neighbours too, "d" is out.
    for (String id : List.of("e", "d", "cz", "c", "ba", "b", "az", "a")) put(id, "v-" + id);
    RawConnection.Chunked scan = scan("start=b&end=d");
    assertThat(scan.status()).isEqualTo(200);
    assertThat(scan.header("transfer-encoding")).isEqualTo("chunked");
    assertThat(scan.complete()).isTrue();
    assertThat(texts(scan)).containsExactly("b\nv-b", "ba\nv-ba", "c\nv-c", "cz\nv-cz");
  }

  @Test
  void withoutEndTheScanRunsToTheLastKey() throws IOException {
    for (String id : List.of("x", "y", "z", "a")) put(id, id);
    assertThat(texts(scan("start=xa"))).containsExactly("y\ny", "z\nz");
    assertThat(texts(scan("start=%20"))).containsExactly("a\na", "x\nx", "y\ny", "z\nz");
  }

  @Test
  void emptyValuesGiveAKeyAndANewlineAndTombstonesAreHidden() throws IOException {
    put("k1", "");
    put("k2", "two");
    put("k3", "three");
    assertThat(server.delete(server.entity("k2")).statusCode()).isEqualTo(202);
    assertThat(texts(scan("start=k"))).containsExactly("k1\n", "k3\nthree");
  }

  @Test
  void anEmptyRangeIsOkWithAnEmptyBody() throws IOException {
    put("m", "m");
    for (String query : List.of("start=n", "start=a&end=b", "start=m&end=m", "start=z&end=a")) {
      RawConnection.Chunked scan = scan(query);
      assertThat(scan.status()).as(query).isEqualTo(200);
      assertThat(scan.complete()).as(query).isTrue();
      assertThat(scan.chunks()).as(query).isEmpty();
    }
  }

  @Test
  void idsArePercentDecodedUtf8AndOrderedByTheirBytes() throws IOException {
    // UTF-8 bytes order: "z" (7A) < "é" (C3 A9) < "日" (E6 97 A5) < "😀" (F0 9F 98 80).
    for (String id : List.of("😀", "日本", "é", "z", "a b", "a+b")) put(id, id);
    assertThat(texts(scan("start=" + enc("z") + "&end=" + enc("😀"))))
        .containsExactly("z\nz", "é\né", "日本\n日本");
    assertThat(texts(scan("start=%C3%A9"))).containsExactly("é\né", "日本\n日本", "😀\n😀");
    // Form encoding: '+' is a space, %2B is '+'.
    assertThat(texts(scan("start=a+b&end=a%2Bc"))).containsExactly("a b\na b", "a+b\na+b");
  }

  @Test
  void badParametersAre400WithAReason() throws IOException {
    Map<String, String> reasons = new TreeMap<>(Map.of(
        "", "missing start",
        "end=b", "missing start",
        "start=", "empty start",
        "start=a&end=", "empty end",
        "start=%FF", "start is not valid UTF-8",
        "start=a&start=b", "start is given more than once",
        "start=a&scope=planet", "scope must be",
        "start=a&ack=1", "scope=cluster only",
        "start=a&scope=cluster&from=7", "exceeds the cluster's 1 node",
        "start=%4", "malformed percent-encoding"));
    for (Map.Entry<String, String> e : reasons.entrySet()) {
      RawConnection.Chunked scan = scan(e.getKey());
      assertThat(scan.status()).as(e.getKey()).isEqualTo(400);
      assertThat(new String(scan.chunks().getFirst(), StandardCharsets.UTF_8)).as(e.getKey()).contains(e.getValue());
    }
  }

  @Test
  void otherMethodsAre405NamingGet() {
    for (String method : List.of("PUT", "DELETE", "POST", "HEAD")) {
      var response = server.method(method, server.uri("/v0/entities?start=a"));
      assertThat(response.statusCode()).as(method).isEqualTo(405);
      assertThat(response.headers().firstValue("Allow")).as(method).hasValue("GET");
    }
  }

  @Test
  void theRemovedInternalRecordScanPathIsAnUnknownPath() throws IOException {
    // Peers scan over the internode protocol now (SCAN): the old internal HTTP path is no route,
    // whatever a request claims to be.
    for (String internal : List.of("", "X-Shale-Internal: trusted\r\n")) {
      RawConnection.Chunked scan = request("GET /v0/internal/records?start=a HTTP/1.1\r\nHost: x\r\n" + internal + "\r\n");
      assertThat(scan.status()).as(internal).isEqualTo(400);
      assertThat(new String(scan.chunks().getFirst(), StandardCharsets.UTF_8)).as(internal).contains("unknown path /v0/internal/records");
    }
  }

  @Test
  void http10IsRefusedBecauseACutBodyWouldLookWhole() throws IOException {
    try (RawConnection c = server.connect()) {
      c.send("GET /v0/entities?start=a HTTP/1.0\r\n\r\n");
      assertThat(c.readChunked().status()).isEqualTo(505);
    }
  }

  @Test
  void aPipelinedScanIsAnsweredInItsPlaceAndSeesTheWritesBeforeIt() throws IOException {
    try (RawConnection c = server.connect()) {
      c.send("PUT /v0/entity?id=p1 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nv1"
          + "GET /v0/entities?start=p HTTP/1.1\r\nHost: x\r\n\r\n"
          + "PUT /v0/entity?id=p2 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nv2"
          + "GET /v0/entities?start=p HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /v0/entity?id=p2 HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /v0/entities?start=q HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      assertThat(c.readChunked().status()).isEqualTo(201);
      assertThat(texts(c.readChunked())).containsExactly("p1\nv1");
      assertThat(c.readChunked().status()).isEqualTo(201);
      assertThat(texts(c.readChunked())).containsExactly("p1\nv1", "p2\nv2");
      RawConnection.Chunked get = c.readChunked();
      assertThat(get.status()).isEqualTo(200);
      assertThat(new String(get.chunks().getFirst(), StandardCharsets.UTF_8)).isEqualTo("v2");
      RawConnection.Chunked last = c.readChunked();
      assertThat(last.status()).isEqualTo(200);
      assertThat(last.complete()).isTrue();
      assertThat(last.chunks()).isEmpty();
      assertThat(c.closedByServer()).as("Connection: close honoured after the scan").isTrue();
    }
  }

  @Test
  void randomRangesMatchAModelAcrossMemtablesAndTables() throws IOException {
    Random random = new Random(TestSeed.forTest("ScanApiTest.randomRanges"));
    TreeMap<byte[], byte[]> model = new TreeMap<>(Keys.ORDER);
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 400; i++) {
        String id = "key-" + random.nextInt(600);
        byte[] key = id.getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(5) == 0) {
          server.engine.delete(key);
          model.remove(key);
        } else {
          byte[] value = new byte[random.nextInt(200)];
          random.nextBytes(value);
          server.engine.put(key, value);
          model.put(key, value);
        }
      }
      server.engine.compact(); // the next round lands on tables as well as the memtable
    }
    for (int q = 0; q < 30; q++) {
      String start = "key-" + random.nextInt(700);
      String end = random.nextBoolean() ? null : "key-" + random.nextInt(700);
      RawConnection.Chunked scan = scan("start=" + enc(start) + (end == null ? "" : "&end=" + enc(end)));
      byte[] s = start.getBytes(StandardCharsets.UTF_8);
      var expected = end == null ? model.tailMap(s, true) : (Keys.compare(s, end.getBytes(StandardCharsets.UTF_8)) >= 0
          ? Collections.<byte[], byte[]>emptyNavigableMap() : model.subMap(s, true, end.getBytes(StandardCharsets.UTF_8), false));
      List<byte[]> want = new ArrayList<>();
      expected.forEach((k, v) -> want.add(chunk(k, v)));
      assertThat(scan.chunks()).as("[%s, %s)", start, end).hasSize(want.size());
      for (int i = 0; i < want.size(); i++) {
        assertThat(Arrays.equals(scan.chunks().get(i), want.get(i))).as("chunk %d of [%s, %s)", i, start, end).isTrue();
      }
    }
  }

  private static byte[] chunk(byte[] key, byte[] value) {
    byte[] out = Arrays.copyOf(key, key.length + 1 + value.length);
    out[key.length] = '\n';
    System.arraycopy(value, 0, out, key.length + 1, value.length);
    return out;
  }

  private void put(String id, String value) {
    assertThat(server.put(server.entity(id), value.getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(201);
  }

  private RawConnection.Chunked scan(String query) throws IOException {
    return request("GET /v0/entities?" + query + " HTTP/1.1\r\nHost: x\r\n\r\n");
  }

  private RawConnection.Chunked request(String text) throws IOException {
    try (RawConnection c = server.connect()) {
      c.send(text.getBytes(StandardCharsets.UTF_8));
      return c.readChunked();
    }
  }

  private static List<String> texts(RawConnection.Chunked scan) {
    assertThat(scan.status()).isEqualTo(200);
    assertThat(scan.complete()).isTrue();
    return scan.chunks().stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList();
  }

  private static String enc(String id) {
    return URLEncoder.encode(id, StandardCharsets.UTF_8);
  }
}
