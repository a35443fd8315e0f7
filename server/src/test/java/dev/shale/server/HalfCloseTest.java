package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that end their side of the connection (shutdown(SHUT_WR)) still get the answers to
 * what they sent, and a refusal that closes reaches a client still sending its body.
 */
class HalfCloseTest {
  // The race on the unfixed server was lost about two times in three: enough tries to show it.
  static final int TRIES = 100;

  @TempDir Path dir;
  TestServer node;

  @BeforeEach
  void start() {
    node = TestServer.start(dir, TestServer.options().withMaxValueSizeBytes(64 * 1024));
    node.engine.put(ConnectionTest.bytes("k"), ConnectionTest.bytes("value"));
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void getThenHalfCloseIsAnsweredThenClosed() throws Exception {
    for (int i = 0; i < TRIES; i++) {
      try (RawConnection connection = node.connect()) {
        connection.send(ConnectionTest.get("k"));
        connection.socket().shutdownOutput();
        RawConnection.Response response = connection.read();
        assertThat(response.status()).as("try %d", i).isEqualTo(200);
        assertThat(response.text()).isEqualTo("value");
        assertThat(connection.closedByServer()).isTrue();
      }
    }
  }

  @Test
  void pipelinedRequestsThenHalfCloseAreAllAnswered() throws Exception {
    for (int i = 0; i < TRIES / 10; i++) {
      try (RawConnection connection = node.connect()) {
        connection.send(ConnectionTest.put("p" + i, "v") + ConnectionTest.get("k") + ConnectionTest.get("p" + i));
        connection.socket().shutdownOutput();
        assertThat(ConnectionTest.statusAndText(connection, 3)).containsExactly("201 ", "200 value", "200 v");
        assertThat(connection.closedByServer()).isTrue();
      }
    }
  }

  @Test
  void http10PutWithoutALengthIs411ThenClosedEvenWhenHalfClosed() throws Exception {
    for (int i = 0; i < TRIES / 4; i++) {
      try (RawConnection connection = node.connect()) {
        connection.send("PUT /v0/entity?id=nolength HTTP/1.0\r\n\r\nthe body, up to the end");
        if (i % 2 == 0) connection.socket().shutdownOutput();
        assertThat(connection.read().status()).as("try %d", i).isEqualTo(411);
        assertThat(connection.closedByServer()).isTrue();
      }
    }
    assertThat(node.engine.get(ConnectionTest.bytes("nolength"))).isNull();
  }

  @Test
  void truncatedRequestThenHalfCloseIs400() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send(BodyLimitTest.putHead("cut", 10) + "half");
      connection.socket().shutdownOutput();
      assertThat(connection.read().status()).isEqualTo(400);
      assertThat(connection.closedByServer()).isTrue();
    }
    assertThat(node.engine.get(ConnectionTest.bytes("cut"))).isNull();
  }

  @Test
  void a413ReachesAClientStillSendingItsBody() throws Exception {
    ExecutorService sender = Executors.newSingleThreadExecutor();
    try (RawConnection connection = node.connect()) {
      int declared = 64 * 1024 * 1024; // far more than the server will read
      connection.send(BodyLimitTest.putHead("huge", declared));
      // The body goes out from another thread, as a client streaming a file would send it;
      // its writes fail once the server is gone, which is expected.
      Future<?> body = sender.submit(() -> {
        OutputStream out = connection.socket().getOutputStream();
        byte[] block = new byte[64 * 1024];
        for (int sent = 0; sent < declared; sent += block.length) out.write(block);
        return null;
      });
      RawConnection.Response response = connection.read();
      assertThat(response.status()).isEqualTo(413);
      assertThat(response.text()).contains("the limit is");
      assertThat(connection.closedByServer()).isTrue();
      body.cancel(true);
    } finally {
      sender.shutdownNow();
    }
  }

  @Test
  void afterHalfCloseNoFurtherBytesAreRead() throws Exception {
    try (RawConnection connection = node.connect()) {
      connection.send((ConnectionTest.get("k") + "GET /v0/entity?id=k HT").getBytes(StandardCharsets.ISO_8859_1));
      connection.socket().shutdownOutput();
      assertThat(connection.read().status()).isEqualTo(200);
      // The cut second request gets no answer; the connection just ends.
      assertThat(connection.closedByServer()).isTrue();
    }
  }
}
