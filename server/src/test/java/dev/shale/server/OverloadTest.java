package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.MemoryRead;
import dev.shale.testkit.Await;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full storage pool answers 503 with Retry-After at once, never queueing without bound; a write
 * the engine can do without waiting, and a read memory answers, are done on the event loop, pool
 * or not.
 */
class OverloadTest {
  @TempDir Path dir;
  TestServer node;
  BlockingEngine engine;

  @AfterEach
  void stop() {
    if (engine != null) engine.release();
    if (node != null) node.close();
  }

  @Test
  void fullQueueAnswers503WithRetryAfterAndStoresNothing() throws Exception {
    node = TestServer.start(dir, TestServer.options().withWorkers(1).withQueueSize(1),
        e -> engine = new BlockingEngine(neverAtOnce(e), "block"));
    CompletableFuture<HttpResponse<byte[]>> blocked = async(() -> node.get(node.entity("block")));
    engine.awaitBlocked(); // the only worker is busy
    CompletableFuture<HttpResponse<byte[]>> queued = async(() -> node.get(node.entity("queued")));
    Await.until("a queued call", TestServer.TIMEOUT, () -> node.server.queuedStorageCalls() == 1);

    HttpResponse<byte[]> refused = node.get(node.entity("refused"));
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
    assertThat(TestServer.text(refused)).contains("overloaded");
    HttpResponse<byte[]> refusedPut = node.put(node.entity("refused"), new byte[] {1});
    assertThat(refusedPut.statusCode()).isEqualTo(503);

    engine.release();
    assertThat(blocked.get().statusCode()).isEqualTo(404);
    assertThat(queued.get().statusCode()).isEqualTo(404);
    assertThat(node.get(node.entity("refused")).statusCode()).isEqualTo(404);
  }

  @Test
  void handOffQueueOfZeroRefusesWhileTheWorkerIsBusy() throws Exception {
    node = TestServer.start(dir, TestServer.options().withWorkers(1).withQueueSize(0),
        e -> engine = new BlockingEngine(neverAtOnce(e), "block"));
    CompletableFuture<HttpResponse<byte[]>> blocked = async(() -> node.get(node.entity("block")));
    engine.awaitBlocked();
    assertThat(node.delete(node.entity("x")).statusCode()).isEqualTo(503);
    engine.release();
    assertThat(blocked.get().statusCode()).isEqualTo(404);
    Await.until("the worker to be free", TestServer.TIMEOUT, () -> node.delete(node.entity("x")).statusCode() == 202);
  }

  @Test
  void writesTheEngineDoesAtOnceAreAnsweredWhileThePoolIsFull() throws Exception {
    node = TestServer.start(dir, TestServer.options().withWorkers(1).withQueueSize(0),
        e -> engine = new BlockingEngine(e, "block"));
    CompletableFuture<HttpResponse<byte[]>> blocked = async(() -> node.get(node.entity("block")));
    engine.awaitBlocked(); // the only worker is busy, and nothing may wait for it

    assertThat(node.get(node.entity("x")).statusCode()).as("a read needs the pool").isEqualTo(503);
    // The engine may decline a write at once now and then (its flush thread holds its lock for a
    // moment): such a try is a 503 with nothing written.
    Await.until("a PUT done at once", TestServer.TIMEOUT, () -> node.put(node.entity("x"), new byte[] {7}).statusCode() == 201);
    Await.until("a DELETE done at once", TestServer.TIMEOUT, () -> node.delete(node.entity("gone")).statusCode() == 202);

    engine.release();
    assertThat(blocked.get().statusCode()).isEqualTo(404);
    HttpResponse<byte[]> stored = node.get(node.entity("x"));
    assertThat(stored.statusCode()).isEqualTo(200);
    assertThat(stored.body()).containsExactly(7);
  }

  @Test
  void readsMemoryAnswersAreAnsweredWhileThePoolIsFull() throws Exception {
    node = TestServer.start(dir, TestServer.options().withWorkers(1).withQueueSize(0),
        e -> answersFromMemoryBut("block", engine = new BlockingEngine(e, "block"), e));
    Await.until("a PUT done at once", TestServer.TIMEOUT, () -> node.put(node.entity("x"), new byte[] {7}).statusCode() == 201);
    CompletableFuture<HttpResponse<byte[]>> blocked = async(() -> node.get(node.entity("block")));
    engine.awaitBlocked(); // the only worker is busy, and nothing may wait for it

    HttpResponse<byte[]> inMemtable = node.get(node.entity("x"));
    assertThat(inMemtable.statusCode()).as("a read memory answers needs no worker").isEqualTo(200);
    assertThat(inMemtable.body()).containsExactly(7);
    assertThat(node.get(node.entity("absent")).statusCode()).isEqualTo(404);

    engine.release();
    assertThat(blocked.get().statusCode()).isEqualTo(404);
  }

  /**
   * {@code blocking}, whose reads from memory are {@code real}'s, except that {@code key}'s needs
   * the disk: its GET takes a worker (and blocks there), the others are answered from memory.
   */
  private static Engine answersFromMemoryBut(String key, Engine blocking, Engine real) {
    byte[] needsDisk = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return new ForwardingEngine(blocking) {
      @Override
      public MemoryRead readFromMemory(byte[] read) {
        return java.util.Arrays.equals(read, needsDisk) ? MemoryRead.NEEDS_DISK : real.readFromMemory(read);
      }
    };
  }

  /** The engine as if it could never write at once: every write needs a pool worker. */
  private static Engine neverAtOnce(Engine engine) {
    return new ForwardingEngine(engine) {
      @Override
      public boolean tryWrite(byte[] key, byte[] value, long version) {
        return false;
      }

      @Override
      public boolean tryWriteAll(List<Entry> records) {
        return false;
      }
    };
  }

  private static <T> CompletableFuture<T> async(java.util.function.Supplier<T> call) {
    return CompletableFuture.supplyAsync(call);
  }
}
