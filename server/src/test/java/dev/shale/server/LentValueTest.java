package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.testkit.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GET of a large value answers from the engine's memory without a heap copy (the engine lends
 * the value, {@link Engine#read}); whatever becomes of the answer, its lease is closed.
 */
class LentValueTest {
  private static final int LARGE = 4 << 20;
  private static final String GET_BIG = "GET /v0/entity?id=big HTTP/1.1\r\nHost: x\r\n\r\n";

  @TempDir Path dir;

  @Test
  void aLargeValueIsAnsweredWholeFromTheMemtableAndFromATable() {
    try (TestServer node = TestServer.start(dir)) {
      byte[] value = value(1, LARGE);
      byte[] small = value(2, Engine.LEND_MIN_VALUE_BYTES - 1);
      assertThat(node.put(node.entity("big"), value).statusCode()).isEqualTo(201);
      assertThat(node.put(node.entity("small"), small).statusCode()).isEqualTo(201);
      assertAnswers(node, "big", value);
      assertAnswers(node, "small", small);

      node.engine.compact();

      assertAnswers(node, "big", value);
      assertAnswers(node, "small", small);
      awaitNoLeases(node.engine);
      assertThat(TestServer.text(node.get(node.uri("/v0/status")))).contains("\"valueLeases\": 0");
    }
  }

  /**
   * Answers written whole, cut by the client mid-body, pipelined and never read, and closed by
   * the server after the write: every lease ends, and so the table they pinned, replaced by a
   * compaction meanwhile, is deleted.
   */
  @Test
  void everyLeaseIsClosedWhateverBecomesOfItsAnswer() throws Exception {
    try (TestServer node = TestServer.start(dir)) {
      byte[] value = value(3, LARGE);
      assertThat(node.put(node.entity("big"), value).statusCode()).isEqualTo(201);
      node.engine.compact();
      List<String> pinned = tableFiles();

      for (int round = 0; round < 4; round++) {
        assertAnswers(node, "big", value);
        try (RawConnection cut = node.connect()) {
          cut.send(GET_BIG.repeat(4));
          readHeadAndSomeBody(cut.input());
        }
        try (RawConnection unread = node.connect()) {
          unread.send(GET_BIG.repeat(8));
        }
        try (RawConnection closing = node.connect()) {
          closing.send("GET /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
          RawConnection.Response response = closing.read();
          assertThat(response.body()).isEqualTo(value);
          assertThat(closing.closedByServer()).isTrue();
        }
      }
      node.engine.put("big".getBytes(StandardCharsets.UTF_8), value(4, LARGE));
      node.engine.compact();

      awaitNoLeases(node.engine);
      Await.until("the replaced table deleted", TestServer.TIMEOUT,
          () -> tableFiles().stream().noneMatch(pinned::contains));
      assertAnswers(node, "big", value(4, LARGE));
    }
  }

  @Test
  void answersStillQueuedAtShutdownCloseTheirLeases() throws Exception {
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      // The client reads nothing: the drain gives up on its answers at once.
      ShaleServer server = ShaleServer.start(engine, Env.real(), TestServer.options().withShutdownTimeoutMillis(200));
      try (TestServer node = TestServer.wrap(new ForwardingEngine(engine), server);
          RawConnection unread = node.connect()) {
        assertThat(node.put(node.entity("big"), value(5, LARGE)).statusCode()).isEqualTo(201);
        unread.send(GET_BIG.repeat(8));
        Await.until("a value lent", TestServer.TIMEOUT, () -> engine.stats().valueLeases() > 0);

        server.close();
      }
      awaitNoLeases(engine);
    }
  }

  private static void assertAnswers(TestServer node, String id, byte[] value) {
    HttpResponse<byte[]> response = node.get(node.entity(id));
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).as("the body of %s", id).isEqualTo(value);
  }

  private static void readHeadAndSomeBody(InputStream in) throws IOException {
    int endOfHead = 0; // bytes of "\r\n\r\n" seen in a row
    while (endOfHead < 4) {
      int b = in.read();
      assertThat(b).as("the answer's head").isNotNegative();
      endOfHead = b == (endOfHead % 2 == 0 ? '\r' : '\n') ? endOfHead + 1 : 0;
    }
    assertThat(in.readNBytes(1000)).hasSize(1000);
  }

  private static void awaitNoLeases(Engine engine) {
    Await.until("every lease closed", TestServer.TIMEOUT, () -> engine.stats().valueLeases() == 0);
  }

  private List<String> tableFiles() {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sst")).toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static byte[] value(long seed, int length) {
    byte[] value = new byte[length];
    new Random(seed).nextBytes(value);
    return value;
  }
}
