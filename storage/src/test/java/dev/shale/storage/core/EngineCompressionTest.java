package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Compression;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.io.FileNames;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compression and the block cache through the engine: a store's tables shrink with a codec, a
 * store written with one codec (or before compression existed) reads back under another, and the
 * engine's stats count the cache.
 */
class EngineCompressionTest {
  private static final int KEYS = 4000;

  @TempDir Path dir;

  @Test
  void textValuesTakeLessSpaceCompressedAndEveryCodecReadsWhatTheOthersWrote() {
    long uncompressed = tableBytesAfterWriting(dir.resolve("none"), Compression.NONE);
    long lz4 = tableBytesAfterWriting(dir.resolve("lz4"), Compression.LZ4);
    long zstd = tableBytesAfterWriting(dir.resolve("zstd"), Compression.ZSTD);
    assertThat(lz4).as("lz4 %d of %d bytes", lz4, uncompressed).isLessThan(uncompressed * 2 / 3);
    assertThat(zstd).as("zstd %d of %d bytes", zstd, uncompressed).isLessThan(lz4);

    // One store through every codec in turn: each reopen writes its own tables beside the others'.
    Path mixed = dir.resolve("mixed");
    Compression[] order = {Compression.LZ4, Compression.ZSTD, Compression.NONE, Compression.LZ4};
    for (int round = 0; round < order.length; round++) {
      try (Engine engine = Engine.open(mixed, EngineTesting.smallOptions().withCompression(order[round]))) {
        if (round > 0) assertHolds(engine, round - 1);
        for (int i = round; i < KEYS; i += 4) engine.put(key(i), value(i, round));
        if (round % 2 == 1) engine.compact();
        assertHolds(engine, round);
      }
    }
  }

  @Test
  void aStoreWrittenBeforeCompressionIsRewrittenCompressedByItsFirstCompaction() throws IOException, URISyntaxException {
    Path fixture = Path.of(getClass().getResource("/stores/before-expiry/MANIFEST-000002").toURI()).getParent();
    EngineTesting.copyDirectory(fixture, dir);
    assertThat(tableFormatVersions(dir)).containsExactly(1);
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      for (int i = 0; i < 200; i++) engine.put(bytes("table-" + i), bytes("a value that compresses well, " + i % 3));
      engine.compact();
      for (int i = 0; i < 200; i++) {
        assertThat(new String(engine.get(bytes("table-" + i)).value(), StandardCharsets.US_ASCII))
            .isEqualTo("a value that compresses well, " + i % 3);
      }
      assertThat(engine.get(bytes("log-1")).value()).isEqualTo(bytes("logged-1"));
    }
    assertThat(tableFormatVersions(dir)).containsOnly(4); // the format the writer writes (docs/format.md, "Footer")
  }

  @Test
  void statsCountCacheHitsAndTheCacheKeepsItsBound() {
    long capacity = 256 << 10;
    EngineOptions options = EngineTesting.smallOptions().withBlockCacheBytes(capacity);
    try (Engine engine = Engine.open(dir, options)) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), value(i, 0));
      engine.compact();
      EngineStats before = engine.stats();
      for (int r = 0; r < 10; r++) assertThat(engine.get(key(7)).value()).isEqualTo(value(7, 0));
      EngineStats after = engine.stats();
      assertThat(after.blockReads() - before.blockReads()).isEqualTo(10);
      assertThat(after.blockCacheHits() - before.blockCacheHits()).isGreaterThanOrEqualTo(9);
      for (int i = 0; i < KEYS; i++) assertThat(engine.get(key(i)).value()).isEqualTo(value(i, 0));
      assertThat(engine.stats().blockCacheBytes()).isPositive().isLessThanOrEqualTo(capacity);
    }
  }

  private long tableBytesAfterWriting(Path directory, Compression compression) {
    try (Engine engine = Engine.open(directory, EngineTesting.smallOptions().withCompression(compression))) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), value(i, 0));
      engine.compact();
      for (int i = 0; i < KEYS; i++) assertThat(engine.get(key(i)).value()).isEqualTo(value(i, 0));
      return engine.stats().tableBytes();
    }
  }

  /** Round r writes the keys i with i % 4 == r: each holds its round's value once that round ran. */
  private static void assertHolds(Engine engine, int lastRound) {
    for (int i = 0; i < KEYS; i++) {
      Entry e = engine.get(key(i));
      if (i % 4 > lastRound) {
        assertThat(e).as("key %d after round %d", i, lastRound).isNull();
      } else {
        assertThat(e).as("key %d after round %d", i, lastRound).isNotNull();
        assertThat(e.value()).as("key %d after round %d", i, lastRound).isEqualTo(value(i, i % 4));
      }
    }
  }

  private static List<Integer> tableFormatVersions(Path directory) throws IOException {
    List<Integer> versions = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(f -> FileNames.parse(f.getFileName().toString()).map(p -> p.kind() == FileNames.Kind.TABLE).orElse(false)).toList()) {
        byte[] bytes = Files.readAllBytes(file);
        versions.add(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(bytes.length - 64 + 48));
      }
    }
    return versions;
  }

  private static byte[] key(int i) {
    return bytes(String.format("user:%08d", i));
  }

  /** A JSON-like document: compressible, as most stored values are. */
  private static byte[] value(int i, int round) {
    return bytes("{\"id\":" + i + ",\"round\":" + round + ",\"name\":\"user number " + i
        + "\",\"plan\":\"" + (i % 3 == 0 ? "free" : "pro") + "\",\"tags\":[\"alpha\",\"beta\",\"gamma\"]}");
  }
}
