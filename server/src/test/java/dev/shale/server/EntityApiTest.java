package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The entity API over real HTTP against a real engine: statuses, bodies and keys. Runs with the
 * worker pool; {@link InlineEntityApiTest} runs it again with storage calls on the event loop.
 */
class EntityApiTest {
  @TempDir Path dir;
  TestServer node;

  ServerOptions options() {
    return TestServer.options();
  }

  @BeforeEach
  void start() {
    node = TestServer.start(dir, options());
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void putThenGetReturnsTheValue() {
    HttpResponse<byte[]> put = node.put(node.entity("k1"), bytes("hello"));
    assertThat(put.statusCode()).isEqualTo(201);

    HttpResponse<byte[]> get = node.get(node.entity("k1"));
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.body()).isEqualTo(bytes("hello"));
    assertThat(get.headers().firstValue("content-type")).hasValue("application/octet-stream");
  }

  /**
   * Issue 36, stumble 4: the README promised {@code X-Shale-Version} on a GET's answer, and only a
   * read coordinated over several replicas had it. A client that compares versions (as
   * replication clients do) gets it from one node too, for a copied and for a lent value, and a
   * deletion's 404 says its version and that it is a tombstone, as a coordinated read's does.
   */
  @Test
  void aGetSaysTheVersionOfTheRecordItFound() {
    node.put(node.entity("v"), bytes("first"));
    long first = version(node.get(node.entity("v")));
    node.put(node.entity("v"), bytes("second"));
    HttpResponse<byte[]> second = node.get(node.entity("v"));
    assertThat(version(second)).isGreaterThan(first);

    byte[] large = new byte[dev.shale.storage.Engine.LEND_MIN_VALUE_BYTES + 1]; // lent, not copied
    node.put(node.entity("v"), large);
    HttpResponse<byte[]> lent = node.get(node.entity("v"));
    assertThat(lent.body()).isEqualTo(large);
    long third = version(lent);
    assertThat(third).isGreaterThan(version(second));

    node.delete(node.entity("v"));
    HttpResponse<byte[]> deleted = node.get(node.entity("v"));
    assertThat(deleted.statusCode()).isEqualTo(404);
    assertThat(version(deleted)).isGreaterThan(third);
    assertThat(deleted.headers().firstValue("X-Shale-Tombstone")).hasValue("true");
    assertThat(node.get(node.entity("never-written")).headers().firstValue("X-Shale-Version")).isEmpty();
  }

  private static long version(HttpResponse<byte[]> answer) {
    assertThat(answer.headers().firstValue("X-Shale-Version")).as("X-Shale-Version of a %d", answer.statusCode()).isPresent();
    return Long.parseLong(answer.headers().firstValue("X-Shale-Version").orElseThrow());
  }

  @Test
  void getOfAnAbsentKeyIs404WithAReason() {
    HttpResponse<byte[]> get = node.get(node.entity("never-written"));
    assertThat(get.statusCode()).isEqualTo(404);
    assertThat(get.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
    assertThat(TestServer.text(get)).isNotBlank().doesNotContain("\n\n");
  }

  @Test
  void deleteIs202AndThenGetIs404() {
    node.put(node.entity("gone"), bytes("v"));
    assertThat(node.delete(node.entity("gone")).statusCode()).isEqualTo(202);
    assertThat(node.get(node.entity("gone")).statusCode()).isEqualTo(404);
  }

  @Test
  void deleteOfAnAbsentKeyIs202() {
    assertThat(node.delete(node.entity("absent")).statusCode()).isEqualTo(202);
  }

  @Test
  void putAfterDeleteBringsTheKeyBack() {
    node.put(node.entity("k"), bytes("one"));
    node.delete(node.entity("k"));
    node.put(node.entity("k"), bytes("two"));
    assertThat(node.get(node.entity("k")).body()).isEqualTo(bytes("two"));
  }

  @Test
  void overwriteReturnsTheNewValue() {
    node.put(node.entity("k"), bytes("first"));
    assertThat(node.put(node.entity("k"), bytes("second")).statusCode()).isEqualTo(201);
    assertThat(node.get(node.entity("k")).body()).isEqualTo(bytes("second"));
  }

  @Test
  void emptyValueIsAValueNotAnAbsence() {
    assertThat(node.put(node.entity("empty"), new byte[0]).statusCode()).isEqualTo(201);
    HttpResponse<byte[]> get = node.get(node.entity("empty"));
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.body()).isEmpty();
  }

  @Test
  void everyByteValueRoundTrips() {
    byte[] value = new byte[512];
    for (int i = 0; i < value.length; i++) value[i] = (byte) i;
    node.put(node.entity("binary"), value);
    assertThat(node.get(node.entity("binary")).body()).isEqualTo(value);
  }

  @Test
  void fourMebibyteValueRoundTrips() {
    byte[] value = new byte[4 << 20];
    new java.util.Random(42).nextBytes(value);
    assertThat(node.put(node.entity("big"), value).statusCode()).isEqualTo(201);
    assertThat(node.get(node.entity("big")).body()).isEqualTo(value);
  }

  @Test
  void chunkedBodyIsStoredWhole() {
    byte[] value = new byte[300_000];
    new java.util.Random(7).nextBytes(value);
    assertThat(node.putChunked(node.entity("chunked"), value).statusCode()).isEqualTo(201);
    assertThat(node.get(node.entity("chunked")).body()).isEqualTo(value);
  }

  @ParameterizedTest
  @ValueSource(strings = {"with space", "a&b", "100%", "1+1=2", "a/b/c", "q?x", "#hash", "ключ", "emoji 😀", "=", "&", "+"})
  void oddIdsAreDistinctKeys(String id) {
    assertThat(node.put(node.entity(id), bytes("value of " + id)).statusCode()).isEqualTo(201);
    assertThat(node.get(node.entity(id)).body()).isEqualTo(bytes("value of " + id));
    // The key is the id's UTF-8 bytes exactly: the engine sees the decoded id.
    assertThat(node.engine.get(id.getBytes(StandardCharsets.UTF_8)).value()).isEqualTo(bytes("value of " + id));
  }

  @Test
  void plusDecodesToASpaceAndPercent2BToAPlus() {
    node.put(node.uri("/v0/entity?id=a+b"), bytes("space"));
    node.put(node.uri("/v0/entity?id=a%2Bb"), bytes("plus"));
    assertThat(node.get(node.uri("/v0/entity?id=a%20b")).body()).isEqualTo(bytes("space"));
    assertThat(node.engine.get(bytes("a+b")).value()).isEqualTo(bytes("plus"));
  }

  @Test
  void otherQueryParametersAreIgnored() {
    node.put(node.uri("/v0/entity?x=1&id=k&y=2"), bytes("v"));
    assertThat(node.get(node.uri("/v0/entity?id=k")).body()).isEqualTo(bytes("v"));
  }

  @Test
  void idOf1024BytesIsAcceptedAnd1025IsNot() {
    String ok = "я".repeat(512); // 2 bytes of UTF-8 each
    assertThat(node.put(node.entity(ok), bytes("v")).statusCode()).isEqualTo(201);
    assertThat(node.get(node.entity(ok)).body()).isEqualTo(bytes("v"));

    HttpResponse<byte[]> tooLong = node.put(node.entity(ok + "a"), bytes("v"));
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(TestServer.text(tooLong)).contains("1025 bytes").contains("1024");
    assertThat(node.engine.get((ok + "a").getBytes(StandardCharsets.UTF_8))).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"/v0/entity", "/v0/entity?", "/v0/entity?id=", "/v0/entity?id", "/v0/entity?key=x"})
  void missingOrEmptyIdIs400(String target) {
    for (HttpResponse<byte[]> response : new HttpResponse[] {
        node.get(node.uri(target)), node.put(node.uri(target), bytes("v")), node.delete(node.uri(target))}) {
      assertThat(response.statusCode()).isEqualTo(400);
      assertThat(TestServer.text(response)).contains("id");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"%", "%4", "%zz", "a%g1", "%%41"})
  void malformedPercentEncodingIs400(String id) throws Exception {
    // HttpClient refuses such URIs, so the request goes over a plain socket.
    try (RawConnection connection = node.connect()) {
      connection.send("GET /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n");
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(400);
      assertThat(response.text()).contains("percent-encoding");
    }
  }

  @Test
  void idThatIsNotUtf8Is400() {
    HttpResponse<byte[]> response = node.put(node.uri("/v0/entity?id=%FF%FE"), bytes("v"));
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(TestServer.text(response)).contains("UTF-8");
  }

  @Test
  void idGivenTwiceIs400() {
    assertThat(node.get(node.uri("/v0/entity?id=a&id=b")).statusCode()).isEqualTo(400);
  }

  @ParameterizedTest
  @ValueSource(strings = {"POST", "PATCH", "HEAD", "OPTIONS"})
  void otherMethodsAre405WithAllow(String method) {
    HttpResponse<byte[]> response = node.method(method, node.entity("k"));
    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("allow")).hasValue("GET, PUT, DELETE");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/v0", "/v0/entity/", "/v1/entity?id=k", "/v0/entitie?id=k", "/v0/entities/x", "/nope"})
  void unknownPathIs400WithAReason(String target) {
    HttpResponse<byte[]> response = node.get(node.uri(target));
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(TestServer.text(response)).contains("unknown path");
  }

  @Test
  void statusIs200WhileServingAndNamesThePid() {
    HttpResponse<byte[]> response = node.get(node.uri("/v0/status"));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(TestServer.text(response)).contains("\"pid\": " + ProcessHandle.current().pid())
        .contains("\"maxHeapBytes\": " + Runtime.getRuntime().maxMemory());
    assertThat(node.method("DELETE", node.uri("/v0/status")).statusCode()).isEqualTo(405);
  }

  @Test
  void compactionOnRequestKeepsTheNewestValuesAndDropsTheRest() {
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 200; i++) {
        assertThat(node.put(node.entity("k" + i), ("v" + round + "-" + i).getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(201);
      }
    }
    for (int i = 0; i < 200; i += 2) assertThat(node.delete(node.entity("k" + i)).statusCode()).isEqualTo(202);

    HttpResponse<byte[]> compacted = node.method("POST", node.uri("/v0/admin/compact"));

    assertThat(compacted.statusCode()).isEqualTo(200);
    assertThat(TestServer.text(compacted)).startsWith("compacted in ").contains("tables of");
    for (int i = 0; i < 200; i++) {
      HttpResponse<byte[]> got = node.get(node.entity("k" + i));
      if (i % 2 == 0) {
        assertThat(got.statusCode()).as("k%d", i).isEqualTo(404);
      } else {
        assertThat(got.statusCode()).as("k%d", i).isEqualTo(200);
        assertThat(new String(got.body(), StandardCharsets.UTF_8)).isEqualTo("v2-" + i);
      }
    }
    assertThat(TestServer.text(node.get(node.uri("/v0/status")))).contains("\"tables\": 1,");
    HttpResponse<byte[]> wrongMethod = node.get(node.uri("/v0/admin/compact"));
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertThat(wrongMethod.headers().firstValue("allow")).hasValue("POST");
  }

  @Test
  void valueUpToTheLimitIsAccepted() {
    byte[] value = new byte[options().maxValueSizeBytes()];
    assertThat(node.put(node.entity("max"), value).statusCode()).isEqualTo(201);
    assertThat(node.get(node.entity("max")).body()).hasSize(value.length);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
