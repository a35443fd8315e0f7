package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static dev.shale.storage.core.EngineTesting.newest;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineHealth;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dropped log tail (docs/format.md, "Write-ahead log"): one record cut short by the end of the
 * file is what a crash leaves, dropped with a log line; a tail of zeroed, once-acknowledged records
 * is dropped too (nothing valid follows it), but reported as accepted damage (issue 31, item 8).
 */
class LogTailLossTest {
  private static final int KEYS = 2_000;

  @TempDir Path dir;

  @Test
  void aZeroedLastHalfOfTheLiveLogIsReportedAsAcceptedDamageNamingTheOffsetAndBytes() throws IOException {
    writeKeysAndClose();
    Path log = newest(dir, FileNames.Kind.LOG);
    byte[] bytes = Files.readAllBytes(log);
    List<Long> records = recordOffsets(bytes);
    int half = bytes.length / 2;
    int survivors = (int) records.stream().filter(offset -> offset + recordBytes(bytes, offset) <= half).count();
    long badOffset = records.get(survivors); // the record holding the first zeroed byte
    Arrays.fill(bytes, half, bytes.length, (byte) 0);
    Files.write(log, bytes);
    long dropped = bytes.length - badOffset;
    assertThat(KEYS - survivors).as("acknowledged records zeroed").isGreaterThan(900);

    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < survivors; i++) assertThat(engine.get(key(i))).as("key %d", i).isNotNull();
      for (int i = survivors; i < KEYS; i++) assertThat(engine.get(key(i))).as("key %d", i).isNull();
      EngineHealth health = engine.health();
      assertThat(health.isDegraded()).as("a store that lost acknowledged records is degraded").isTrue();
      assertThat(health.damage()).singleElement().satisfies(d -> {
        assertThat(d.file()).isEqualTo(log);
        assertThat(d.problem()).contains("offset " + badOffset).contains(dropped + " bytes");
        assertThat(d.dropped()).isEqualTo(new EngineHealth.DroppedBytes(badOffset, dropped));
      });
      assertThat(health.droppedLogBytes()).isEqualTo(dropped);
    }
  }

  @Test
  void aRecordCutShortByTheEndOfTheFileIsATornAppendAndNotReported() throws IOException {
    writeKeysAndClose();
    Path log = newest(dir, FileNames.Kind.LOG);
    byte[] bytes = Files.readAllBytes(log);
    long last = recordOffsets(bytes).getLast();
    try (FileChannel channel = FileChannel.open(log, StandardOpenOption.WRITE)) {
      channel.truncate(last + recordBytes(bytes, last) - 3); // the crash came 3 bytes early
    }

    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < KEYS - 1; i++) assertThat(engine.get(key(i))).as("key %d", i).isNotNull();
      assertThat(engine.get(key(KEYS - 1))).isNull();
      assertThat(engine.health().damage()).as("a torn append is not damage").isEmpty();
    }
  }

  private void writeKeysAndClose() {
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), bytes("value-" + i));
    }
  }

  // docs/format.md, "Write-ahead log": a 16-byte header, then crc:u32 length:u32 payload[length].
  private static List<Long> recordOffsets(byte[] log) {
    List<Long> offsets = new ArrayList<>();
    for (long offset = 16; offset < log.length; offset += recordBytes(log, offset)) offsets.add(offset);
    return offsets;
  }

  private static long recordBytes(byte[] log, long offset) {
    return 8 + Integer.toUnsignedLong(ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN).getInt((int) offset + 4));
  }

  private static byte[] key(int i) {
    return bytes("key-" + i);
  }
}
