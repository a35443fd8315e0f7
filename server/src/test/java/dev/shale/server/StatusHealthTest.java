package dev.shale.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import java.nio.file.Path;
import java.util.List;
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
