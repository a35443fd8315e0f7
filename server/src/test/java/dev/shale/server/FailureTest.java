package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Engine;
import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import dev.shale.storage.WriteStallException;
import dev.shale.testkit.Await;
import dev.shale.testkit.SmallDisk;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Engine failures become answers with a one-line reason; no connection hangs. */
class FailureTest {
  @TempDir Path dir;
  TestServer node;

  @AfterEach
  void stop() {
    if (node != null) node.close();
  }

  @Test
  void writeStallIs503WithRetryAfter() {
    start(() -> new WriteStallException("4 memtables wait for their flush"));
    HttpResponse<byte[]> response = node.put(node.entity("k"), new byte[] {1});
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.headers().firstValue("retry-after")).hasValue("1");
    assertThat(TestServer.text(response)).contains("4 memtables wait for their flush");
  }

  // Issue 12, defect 4: a real engine on a real small disk, under the default 64 MiB reserve.
  @Test
  void aFullDiskIs507WithRetryAfterAndWritesResumeOnceSpaceIsFreed() throws IOException {
    try (SmallDisk disk = SmallDisk.mount(96 << 20)) {
      node = TestServer.start(disk.root().resolve("store"));
      assertThat(node.put(node.entity("before"), new byte[] {1}).statusCode()).isEqualTo(201);
      Path ballast = disk.fillLeaving("ballast", 32 << 20);

      Await.until("a PUT refused for want of space", Duration.ofSeconds(30),
          () -> node.put(node.entity("k"), new byte[] {2}).statusCode() == 507);
      HttpResponse<byte[]> refused = node.put(node.entity("refused"), new byte[] {2});
      assertThat(refused.statusCode()).isEqualTo(507);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("10");
      assertThat(TestServer.text(refused)).contains("insufficient storage").contains("reserve")
          .contains("nothing was written");
      assertThat(node.get(node.entity("refused")).statusCode()).isEqualTo(404);
      assertThat(node.get(node.entity("before")).body()).containsExactly(1);
      assertThat(TestServer.text(node.get(node.uri("/v0/status"))))
          .contains("\"degraded\"").contains("\"refusalClearsByItself\": true");

      Files.delete(ballast);
      Await.until("writes resume", Duration.ofSeconds(30),
          () -> node.put(node.entity("k"), new byte[] {3}).statusCode() == 201);
      assertThat(node.get(node.entity("k")).body()).containsExactly(3);
      node.close();
      node = null;
    }
  }

  @Test
  void storageFailureIs500WithTheReason() {
    start(() -> new StorageException("write to 000007.log failed:\nNo space left on device"));
    HttpResponse<byte[]> response = node.delete(node.entity("k"));
    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(TestServer.text(response))
        .isEqualTo("storage failure: write to 000007.log failed: No space left on device\n");
  }

  @Test
  void corruptionIs500NamingTheFile() {
    start(() -> new CorruptionException(Path.of("000012.sst"), "block at offset 4096: checksum mismatch"));
    HttpResponse<byte[]> response = node.get(node.entity("k"));
    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(TestServer.text(response)).contains("corrupt").contains("000012.sst").contains("offset 4096");
  }

  @Test
  void unexpectedExceptionIs500() {
    start(() -> new NullPointerException("a bug"));
    HttpResponse<byte[]> response = node.get(node.entity("k"));
    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(TestServer.text(response)).contains("internal error").contains("a bug");
  }

  @Test
  void errorIs500Too() {
    start(() -> new StackOverflowError("deep"));
    assertThat(node.get(node.entity("k")).statusCode()).isEqualTo(500);
    // The connection and the server keep working.
    assertThat(node.get(node.uri("/v0/status")).statusCode()).isEqualTo(200);
  }

  @Test
  void inlineCallsFailTheSameWay() {
    node = TestServer.start(dir, TestServer.options().withWorkers(0),
        e -> failing(e, () -> new StorageException("disk gone")));
    assertThat(node.get(node.entity("k")).statusCode()).isEqualTo(500);
    assertThat(node.get(node.uri("/v0/status")).statusCode()).isEqualTo(200);
  }

  private void start(Supplier<Throwable> failure) {
    node = TestServer.start(dir, TestServer.options(), e -> failing(e, failure));
  }

  @Test
  void failedCompactionIs500WithTheReasonAndTheNodeKeepsServing() {
    node = TestServer.start(dir, TestServer.options(), e -> new ForwardingEngine(e) {
      @Override
      public void compact() {
        throw new StorageException("compaction of 000009.sst failed: No space left on device");
      }
    });
    assertThat(node.put(node.entity("k"), new byte[] {7}).statusCode()).isEqualTo(201);

    HttpResponse<byte[]> response = node.method("POST", node.uri("/v0/admin/compact"));

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(TestServer.text(response))
        .isEqualTo("storage failure: compaction of 000009.sst failed: No space left on device\n");
    assertThat(node.get(node.entity("k")).body()).containsExactly(7);
  }

  /** An engine whose get, put, delete, tryWrite and tryWriteAll throw what {@code failure} makes. */
  private static Engine failing(Engine engine, Supplier<Throwable> failure) {
    return new ForwardingEngine(engine) {
      @Override
      public Entry get(byte[] key) {
        throw sneaky(failure.get());
      }

      @Override
      public long put(byte[] key, byte[] value) {
        throw sneaky(failure.get());
      }

      @Override
      public long delete(byte[] key) {
        throw sneaky(failure.get());
      }

      @Override
      public boolean tryWrite(byte[] key, byte[] value, long version) {
        throw sneaky(failure.get());
      }

      @Override
      public boolean tryWriteAll(List<Entry> records) {
        throw sneaky(failure.get());
      }
    };
  }

  private static RuntimeException sneaky(Throwable t) {
    if (t instanceof RuntimeException e) return e;
    if (t instanceof Error e) throw e;
    throw new IllegalArgumentException(t);
  }
}
