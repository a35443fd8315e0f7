package dev.shale.storage.table;

import static dev.shale.storage.table.TableRoundTripTest.randomRecords;
import static dev.shale.storage.table.TableRoundTripTest.toList;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Compression;
import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.Vfs;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data block compression (docs/format.md, "Data blocks and compression"): round trips through
 * every codec, the writer's choice between compressed and stored, big blocks, and damage to
 * compressed blocks. Replay a failure with {@code -Dshale.seed=<seed printed by the run>}.
 */
class CompressionTest {
  private static final String[] WORDS = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};

  @TempDir Path dir;

  @Test
  void everyCodecReadsBackExactlyWhatWasWritten() throws IOException {
    long seed = TestSeed.forTest("everyCodecReadsBackExactlyWhatWasWritten");
    Random random = new Random(seed);
    for (Compression compression : Compression.values()) {
      for (boolean text : new boolean[] {true, false}) {
        NavigableMap<byte[], Entry> records = text ? textRecords(random, 2000) : randomRecords(random, 1500);
        int blockSizeBytes = 256 + random.nextInt(8192);
        String context = "seed " + seed + ", " + compression + ", " + (text ? "text" : "random") + ", block " + blockSizeBytes;
        Path file = dir.resolve(compression + "-" + text + ".sst");
        TableWriter.write(Vfs.real(), file, 1, records.values().iterator(), blockSizeBytes, 10, compression);
        try (Table table = Table.open(Vfs.real(), file, 1)) {
          for (Entry e : records.values()) assertThat(table.get(e.key().clone())).as(context).isEqualTo(e);
          assertThat(toList(table.iterator())).as(context).containsExactlyElementsOf(records.values());
          byte[] from = records.keySet().stream().skip(records.size() / 2).findFirst().orElseThrow();
          assertThat(toList(table.iterator(from))).as(context)
              .containsExactlyElementsOf(records.tailMap(from, true).values());
        }
      }
    }
  }

  @Test
  void compressibleBlocksShrinkAndIncompressibleOnesAreStoredAsTheyAre() throws IOException {
    long seed = TestSeed.forTest("compressibleBlocksShrinkAndIncompressibleOnesAreStoredAsTheyAre");
    NavigableMap<byte[], Entry> text = textRecords(new Random(seed), 3000);
    NavigableMap<byte[], Entry> random = randomValueRecords(new Random(seed), 3000);
    for (Compression compression : List.of(Compression.LZ4, Compression.ZSTD)) {
      long none = Files.size(write(text, Compression.NONE));
      long compressed = Files.size(write(text, compression));
      assertThat(compressed).as("%s of text: %d bytes, uncompressed %d", compression, compressed, none).isLessThan(none * 2 / 3);
      // Every full block of text shrinks. The last holds what was left over, with some seeds too
      // little to save the eighth a block must save to be stored compressed.
      List<Byte> codecs = codecs(write(text, compression));
      assertThat(codecs.subList(0, codecs.size() - 1)).as(compression.optionName()).containsOnly(BlockCodec.id(compression));
      assertThat(codecs.getLast()).isIn(BlockCodec.id(compression), TableFormat.CODEC_NONE);
      // Random values of 1,000 bytes do not shrink by an eighth (the entries' headers and the
      // offsets do, but they are 3% of a block): every block is stored as it is, byte for byte as
      // a table written without compression.
      assertThat(Files.readAllBytes(write(random, compression))).isEqualTo(Files.readAllBytes(write(random, Compression.NONE)));
    }
  }

  @Test
  void aBlockOfOneBigValueIsStoredAsItIsAndReadsBack() throws IOException {
    byte[] big = new byte[3 << 20]; // zeros: as compressible as a value gets, but past 1 MiB
    List<Entry> records = List.of(new Entry(key("a"), 1, "small".getBytes(StandardCharsets.US_ASCII)),
        new Entry(key("b"), 2, big), new Entry(key("c"), 3, new byte[100]));
    Path file = dir.resolve("big.sst");
    TableWriter.write(Vfs.real(), file, 1, records.iterator(), 4096, 10, Compression.LZ4);
    assertThat(Files.size(file)).isGreaterThan(big.length);
    // a and b made one block, streamed as it is; c's block of 100 zeros compressed.
    assertThat(codecs(file)).containsExactly(TableFormat.CODEC_NONE, TableFormat.CODEC_LZ4);
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      assertThat(toList(table.iterator())).containsExactlyElementsOf(records);
      assertThat(table.get(key("b"))).isEqualTo(records.get(1));
    }
  }

  @Test
  void anyDamagedByteOfACompressedBlockFailsReadsOfThatBlockOnly() throws IOException {
    NavigableMap<byte[], Entry> records = textRecords(new Random(7), 400);
    Path file = write(records, Compression.LZ4);
    TableBytes original = TableBytes.read(file);
    List<List<byte[]>> keysByBlock = TableBytes.keysByBlock(file);
    BlockHandle block = original.dataBlocks.get(1);
    assertThat(codecOf(original, block)).isEqualTo(TableFormat.CODEC_LZ4);
    for (long at = block.offset(); at < block.end(); at++) {
      Path damaged = original.copy().flip(at).writeTo(dir.resolve("damaged.sst"));
      try (Table table = Table.open(Vfs.real(), damaged, 1)) {
        byte[] inBlock = keysByBlock.get(1).get(0);
        assertThatThrownBy(() -> table.get(inBlock)).as("byte %d", at)
            .isInstanceOf(CorruptionException.class).hasMessageContaining("fails its crc");
        byte[] elsewhere = keysByBlock.get(0).get(0);
        assertThat(table.get(elsewhere)).isEqualTo(records.get(elsewhere));
      }
    }
  }

  @Test
  void garbageThatPassesTheCrcIsCorruptionNotACrash() throws IOException {
    NavigableMap<byte[], Entry> records = textRecords(new Random(11), 400);
    Path file = write(records, Compression.ZSTD);
    TableBytes original = TableBytes.read(file);
    BlockHandle block = original.dataBlocks.get(0);
    byte[] inBlock = TableBytes.keysByBlock(file).get(0).get(0);
    long codecAt = block.end() - TableFormat.CRC_BYTES - TableFormat.CODEC_BYTES;

    assertCorrupt(original.copy().putU8(codecAt, 9).resealBlock(block), inBlock, "unknown codec 9");
    assertCorrupt(original.copy().putU8(codecAt, TableFormat.CODEC_LZ4).resealBlock(block), inBlock, "");
    int contentsLength = original.u32(block.offset());
    assertCorrupt(original.copy().putU32(block.offset(), contentsLength + 1).resealBlock(block), inBlock, "");
    assertCorrupt(original.copy().putU32(block.offset(), 64 << 20).resealBlock(block), inBlock, "declares");
    Random random = new Random(TestSeed.forTest("garbageThatPassesTheCrcIsCorruptionNotACrash"));
    for (int i = 0; i < 200; i++) {
      TableBytes damaged = original.copy();
      long at = block.offset() + TableFormat.CONTENTS_LENGTH_BYTES + random.nextInt((int) (codecAt - block.offset() - 4));
      damaged.flip(at).resealBlock(block);
      try (Table table = Table.open(Vfs.real(), damaged.writeTo(dir.resolve("sealed.sst")), 1)) {
        // Zstandard's frame may still decode to the right size with different bytes; then the
        // block's own checks (counts, offsets, lengths) or the records' order catch it, or the
        // damage lands in a value. Whatever happens must be a record or a CorruptionException.
        try {
          table.get(inBlock);
          toList(table.iterator());
        } catch (CorruptionException expected) {
          // the only exception allowed
        }
      }
    }
  }

  private void assertCorrupt(TableBytes damaged, byte[] key, String message) throws IOException {
    try (Table table = Table.open(Vfs.real(), damaged.writeTo(dir.resolve("sealed.sst")), 1)) {
      assertThatThrownBy(() -> table.get(key)).isInstanceOf(CorruptionException.class).hasMessageContaining(message);
    }
  }

  private Path write(NavigableMap<byte[], Entry> records, Compression compression) throws IOException {
    Path file = dir.resolve("t-" + compression + "-" + records.size() + "-" + System.identityHashCode(records) + ".sst");
    Files.deleteIfExists(file);
    TableWriter.write(Vfs.real(), file, 1, records.values().iterator(), 4096, 10, compression);
    return file;
  }

  private static List<Byte> codecs(Path file) throws IOException {
    TableBytes table = TableBytes.read(file);
    return table.dataBlocks.stream().map(b -> codecOf(table, b)).toList();
  }

  private static byte codecOf(TableBytes table, BlockHandle block) {
    return table.bytes[Math.toIntExact(block.end() - TableFormat.CRC_BYTES - TableFormat.CODEC_BYTES)];
  }

  /** Records whose values are text of a few words (compressible, as documents are), some tombstones. */
  static NavigableMap<byte[], Entry> textRecords(Random random, int count) {
    TreeMap<byte[], Entry> records = new TreeMap<>(Keys.ORDER);
    while (records.size() < count) {
      byte[] key = key("user:" + random.nextInt(1_000_000));
      long version = 1 + random.nextInt(1 << 30);
      if (random.nextInt(10) == 0) {
        records.put(key, Entry.tombstone(key, version));
        continue;
      }
      StringBuilder value = new StringBuilder("{\"name\":\"");
      int words = 3 + random.nextInt(30);
      for (int w = 0; w < words; w++) value.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
      value.append("\",\"score\":").append(random.nextInt(1000)).append('}');
      records.put(key, new Entry(key, version, value.toString().getBytes(StandardCharsets.US_ASCII)));
    }
    return records;
  }

  /** Records of 1,000 random bytes each: incompressible. */
  private static NavigableMap<byte[], Entry> randomValueRecords(Random random, int count) {
    TreeMap<byte[], Entry> records = new TreeMap<>(Keys.ORDER);
    while (records.size() < count) {
      byte[] key = key("user:" + random.nextInt(1_000_000));
      byte[] value = new byte[1000];
      random.nextBytes(value);
      records.put(key, new Entry(key, 1 + random.nextInt(1 << 30), value));
    }
    return records;
  }

  private static byte[] key(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
