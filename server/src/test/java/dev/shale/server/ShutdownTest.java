package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.testkit.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** close(): stop accepting, answer what was received, then stop every thread. */
class ShutdownTest {
  @TempDir Path dir;
  TestServer node;
  BlockingEngine engine;

  @AfterEach
  void stop() {
    if (engine != null) engine.release();
    if (node != null) node.close();
  }

  @Test
  void inFlightRequestIsAnsweredBeforeTheServerStops() throws Exception {
    node = TestServer.start(dir, TestServer.options(), e -> engine = new BlockingEngine(e, "slow"));
    node.engine.put("slow".getBytes(StandardCharsets.UTF_8), "value".getBytes(StandardCharsets.UTF_8));
    try (RawConnection inFlight = node.connect(); RawConnection idle = node.connect()) {
      inFlight.send(ConnectionTest.get("slow"));
      engine.awaitBlocked();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(node.server::close);

      Await.until("the listener to close", TestServer.TIMEOUT, () -> !accepts(node.port()));
      assertThat(idle.closedByServer()).as("an idle connection is closed at once").isTrue();
      assertThat(closing).isNotDone();

      engine.release();
      RawConnection.Response response = inFlight.read();
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.text()).isEqualTo("value");
      closing.get();
      assertThat(inFlight.closedByServer()).isTrue();
    }
  }

  @Test
  void closeGivesUpOnAnswersThatNeverComeAfterTheShutdownTimeout() throws Exception {
    node = TestServer.start(dir, TestServer.options().withShutdownTimeoutMillis(100),
        e -> engine = new BlockingEngine(e, "stuck"));
    try (RawConnection stuck = node.connect()) {
      stuck.send(ConnectionTest.get("stuck"));
      engine.awaitBlocked();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(node.server::close);
      assertThat(stuck.closedByServer()).isTrue();
      engine.release(); // lets the pool finish, so close() can return
      closing.get();
    }
  }

  @Test
  void closeIsIdempotentAndRefusesNewConnections() throws Exception {
    node = TestServer.start(dir);
    int port = node.port();
    node.server.close();
    node.server.close();
    assertThat(accepts(port)).isFalse();
    assertThatThrownBy(() -> new RawConnection(port)).isInstanceOf(IOException.class);
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
