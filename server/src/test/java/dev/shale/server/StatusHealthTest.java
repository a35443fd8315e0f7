package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /v0/status} says "degraded", and why, when the engine refuses writes or serves around damage. */
class StatusHealthTest {
  private static final String REFUSAL = "append to 000004.log failed: java.io.IOException: Input/output error;"
      + " the engine accepts no more writes";

  @TempDir Path dir;
  TestServer node;

  @AfterEach
  void stop() {
    if (node != null) node.close();
  }

  @Test
  void aHealthyNodeIsServingAndAcceptsWrites() {
    node = TestServer.start(dir);
    assertThat(status()).contains("\"status\": \"serving\"", "\"writes\": \"accepted\"", "\"damage\": []")
        .doesNotContain("writeRefusal");
  }

  /** As after a failed log append: every write refused until a restart. */
  @Test
  void aNodeWhoseEngineRefusesWritesIsDegradedWithTheReason() {
    node = TestServer.start(dir, TestServer.options(), e -> new ForwardingEngine(e) {
      @Override
      public long put(byte[] key, byte[] value) {
        throw new StorageException("engine refuses writes after an earlier failure: " + REFUSAL);
      }

      @Override
      public boolean tryWrite(byte[] key, byte[] value, long version) {
        return put(key, value) >= 0;
      }

      @Override
      public boolean tryWriteAll(List<Entry> records) {
        return put(records.getFirst().key(), records.getFirst().value()) >= 0;
      }

      @Override
      public EngineHealth health() {
        return new EngineHealth(REFUSAL, false, List.of());
      }
    });
    assertThat(node.put(node.entity("k"), new byte[] {1}).statusCode()).isEqualTo(500);

    assertThat(status()).contains("\"status\": \"degraded\"", "\"writes\": \"refused\"",
        "\"writeRefusal\": \"" + REFUSAL + "\"", "\"refusalClearsByItself\": false", "\"damage\": []");
  }

  @Test
  void aNodeServingAroundADamagedTableIsDegradedAndNamesTheFileTheProblemAndTheRemedy() {
    Path table = dir.resolve("000012.sst");
    node = TestServer.start(dir, TestServer.options(), e -> damaged(e, new EngineHealth.Damage(table,
        "block at offset 4096: crc mismatch (\"stored\" 1a2b, computed 3c4d)",
        "set aside by compaction; its other blocks are served; restore the node from a replica")));

    assertThat(status()).contains("\"status\": \"degraded\"", "\"writes\": \"accepted\"",
        "\"damage\": [{\"file\": \"" + table + "\", \"problem\": \"block at offset 4096: crc mismatch"
            + " (\\\"stored\\\" 1a2b, computed 3c4d)\", \"remedy\": \"set aside by compaction;");
  }

  // Issue 31, item 8: zeroing the last half of the live log (about 1,000 acknowledged records)
  // must not leave the node "serving" with no damage: it says what was dropped, where, and counts
  // it in a metric.
  @Test
  void aNodeWhoseLiveLogLostAZeroedTailSaysWhatItDroppedInStatusAndMetrics() throws IOException {
    int keys = 2_000;
    node = TestServer.start(dir);
    for (int i = 0; i < keys; i++) {
      assertThat(node.put(node.entity("key-" + i), ("value-" + i).getBytes(StandardCharsets.UTF_8)).statusCode())
          .isEqualTo(201);
    }
    node.close();
    node = null;
    Path log = liveLog();
    byte[] bytes = Files.readAllBytes(log);
    int half = bytes.length / 2;
    long badOffset = 16; // docs/format.md, "Write-ahead log": header, then crc:u32 length:u32 payload
    while (badOffset + recordBytes(bytes, badOffset) <= half) badOffset += recordBytes(bytes, badOffset);
    Arrays.fill(bytes, half, bytes.length, (byte) 0);
    Files.write(log, bytes);
    long dropped = bytes.length - badOffset;

    node = TestServer.start(dir);
    assertThat(status()).contains("\"status\": \"degraded\"", "\"file\": " + StatusBody.quote(log.toString()),
        "\"accepted\": true", "\"offset\": " + badOffset, "\"droppedBytes\": " + dropped);
    String metrics = TestServer.text(node.get(node.uri("/metrics")));
    assertThat(gauge(metrics, "shale_engine_log_dropped_bytes")).isEqualTo(dropped);
    assertThat(gauge(metrics, "shale_engine_damage_reports")).isEqualTo(1);
    assertThat(node.get(node.entity("key-0")).statusCode()).isEqualTo(200);
    assertThat(node.get(node.entity("key-" + (keys - 1))).statusCode()).isEqualTo(404);
  }

  private Path liveLog() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".wal")).filter(f -> f.toFile().length() > 16)
          .max(Comparator.comparing(Path::getFileName)).orElseThrow();
    }
  }

  private static long recordBytes(byte[] log, long offset) {
    return 8 + Integer.toUnsignedLong(ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN).getInt((int) offset + 4));
  }

  private static long gauge(String metrics, String name) {
    Matcher value = Pattern.compile("^" + name + " (\\S+)$", Pattern.MULTILINE).matcher(metrics);
    assertThat(value.find()).as("%s in /metrics", name).isTrue();
    return (long) Double.parseDouble(value.group(1));
  }

  private static Engine damaged(Engine engine, EngineHealth.Damage damage) {
    return new ForwardingEngine(engine) {
      @Override
      public EngineHealth health() {
        return new EngineHealth(null, false, List.of(damage));
      }
    };
  }

  private String status() {
    var response = node.get(node.uri("/v0/status"));
    assertThat(response.statusCode()).as("a degraded node still answers its status").isEqualTo(200);
    return TestServer.text(response);
  }
}
