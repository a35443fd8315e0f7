package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.util.Murmur3;
import dev.shale.storage.util.Murmur3.Hash128;
import io.airlift.compress.v3.Compressor;
import io.airlift.compress.v3.lz4.Lz4JavaCompressor;
import io.airlift.compress.v3.zstd.ZstdJavaCompressor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's bytes against docs/format.md, "Table", spelled out here field by field from the
 * spec (not from the writer's code), so that a writer and reader agreeing on a wrong layout fail.
 */
class TableFormatTest {
  @TempDir Path dir;

  private static final long V1 = 0x0000_0193_0000_0001L;
  /** The file number a spelled table of format 4 carries in its footer. */
  static final long SPEC_FILE_NUMBER = 9;
  static final List<Entry> RECORDS = List.of(new Entry(bytes("k1"), V1, bytes("v1")), Entry.tombstone(bytes("k2"), 7));

  @Test
  void smallTableMatchesTheSpecByteForByte() throws IOException {
    Path file = dir.resolve("000009.sst");
    TableWriter.write(Vfs.real(), file, SPEC_FILE_NUMBER, RECORDS.iterator(), 4096, 10);

    // Format 4, the data block stored as it is (codec 0): 38 bytes of contents do not compress by an eighth.
    assertThat(HexFormat.of().formatHex(Files.readAllBytes(file)))
        .isEqualTo(HexFormat.of().formatHex(specTable(TableFormat.FORMAT_VERSION_4, TableFormat.CODEC_NONE)));
  }

  @Test
  void prefixEntriesShareKeysAndCodeVersionsAgainstTheEntryBefore() throws IOException {
    // 20 keys: entry 16 is the second restart point. Versions go down as well as up, and one key
    // shares nothing with the key before it, so every rule of the spec is spelled once.
    List<Entry> records = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String key = i == 19 ? "z" : String.format("key%02d", i);
      records.add(new Entry(bytes(key), V1 + (i % 2 == 0 ? i : -i), bytes("v" + i)));
    }
    Path file = dir.resolve("000011.sst");
    TableWriter.write(Vfs.real(), file, 11, records.iterator(), 4096, 0);

    // Bytes each key shares with the key before: none at the restart points (0, 16), "key" from
    // "key09" to "key10", none from "key18" to "z", "key0" or "key1" elsewhere.
    int[] sharedBytes = {0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 4, 4, 4, 4, 4, 0, 4, 4, 0};
    Spec contents = new Spec();
    int[] restarts = {0, 0};
    long previousVersion = 0;
    for (int i = 0; i < records.size(); i++) {
      Entry e = records.get(i);
      if (i == 16) restarts[1] = contents.size();
      int shared = sharedBytes[i];
      long base = shared == 0 ? V1 : previousVersion;
      long delta = e.version() - base;
      contents.varint(shared).varint(e.key().length - shared).varint(e.value().length).u8(1)
          .zigzag(delta).raw(Arrays.copyOfRange(e.key(), shared, e.key().length)).raw(e.value());
      previousVersion = e.version();
    }
    contents.u64(V1).u32(restarts[0]).u32(restarts[1]).u32(2);
    byte[] bytes = Files.readAllBytes(file);
    byte[] expected = contents.toArray();
    assertThat(HexFormat.of().formatHex(Arrays.copyOf(bytes, expected.length))).isEqualTo(HexFormat.of().formatHex(expected));
    try (Table table = Table.open(Vfs.real(), file, 11)) {
      for (Entry e : records) assertThat(table.get(e.key())).isEqualTo(e);
      assertThat(table.get(bytes("key"))).isNull();
      assertThat(table.get(bytes("key165"))).isNull();
      assertThat(TableRoundTripTest.toList(table.iterator())).containsExactlyElementsOf(records);
      assertThat(TableRoundTripTest.toList(table.iterator(bytes("key155")))).containsExactlyElementsOf(records.subList(16, 20));
    }
  }

  @Test
  void tablesOfEveryFormatVersionAndCodecReadBack() throws IOException {
    byte[][] tables = {
      specTable(TableFormat.FORMAT_VERSION_1, TableFormat.CODEC_NONE),
      specTable(TableFormat.FORMAT_VERSION_2, TableFormat.CODEC_NONE),
      specTable(TableFormat.FORMAT_VERSION_2, TableFormat.CODEC_LZ4),
      specTable(TableFormat.FORMAT_VERSION_2, TableFormat.CODEC_ZSTD),
      specTable(TableFormat.FORMAT_VERSION_3, TableFormat.CODEC_NONE),
      specTable(TableFormat.FORMAT_VERSION_3, TableFormat.CODEC_LZ4),
      specTable(TableFormat.FORMAT_VERSION_3, TableFormat.CODEC_ZSTD),
      specTable(TableFormat.FORMAT_VERSION_4, TableFormat.CODEC_NONE),
      specTable(TableFormat.FORMAT_VERSION_4, TableFormat.CODEC_LZ4),
      specTable(TableFormat.FORMAT_VERSION_4, TableFormat.CODEC_ZSTD),
    };
    for (int t = 0; t < tables.length; t++) {
      Path file = Files.write(dir.resolve(t + ".sst"), tables[t]);
      try (Table table = Table.open(Vfs.real(), file, t)) {
        assertThat(table.get(bytes("k1"))).as("table %d", t).isEqualTo(RECORDS.get(0));
        assertThat(table.get(bytes("k2"))).as("table %d", t).isEqualTo(RECORDS.get(1));
        assertThat(table.get(bytes("k3"))).as("table %d", t).isNull();
        assertThat(TableRoundTripTest.toList(table.iterator())).as("table %d", t).containsExactlyElementsOf(RECORDS);
      }
    }
  }

  /**
   * RECORDS as a table of {@code formatVersion} whose one data block is stored with {@code codec},
   * spelled from docs/format.md; from format 4 its footer says it is table {@link
   * #SPEC_FILE_NUMBER}. Compressed contents come from aircompressor's pure-Java codecs, which the
   * writer does not use where the native libraries load: another encoder of the same formats.
   */
  static byte[] specTable(int formatVersion, byte codec) {
    Spec contents = new Spec();
    if (formatVersion >= TableFormat.FORMAT_VERSION_3) {
      // prefix_entry: shared unshared value_length type version_delta key_suffix value. "k2"
      // shares "k" with "k1"; its version 7 is coded against V1 as zigzag(7 - V1).
      long delta = 7 - V1;
      contents.varint(0).varint(2).varint(2).u8(1).varint(0).raw("k1").raw("v1"); // 9 bytes
      contents.varint(1).varint(1).varint(0).u8(2).zigzag(delta).raw("2");
      contents.u64(V1).u32(0).u32(1); // base_version, restart offsets, restart_count
    } else {
      contents.u32(2).u32(2).u64(V1).u8(1).raw("k1").raw("v1"); // 21 bytes
      contents.u32(2).u32(0).u64(7).u8(2).raw("k2"); // 19 bytes
      contents.u32(0).u32(21).u32(2); // offsets, count
    }
    byte[] c = contents.toArray();
    Spec expected = new Spec();
    // Data block at 0: block(entry) in format 1; stored, codec, crc in format 2.
    if (formatVersion == TableFormat.FORMAT_VERSION_1) {
      expected.raw(c).crcFrom(0);
    } else if (codec == TableFormat.CODEC_NONE) {
      expected.raw(c).u8(codec).crcFrom(0);
    } else {
      expected.u32(c.length).raw(compressedByJava(codec, c)).u8(codec).crcFrom(0);
    }
    long dataLength = expected.size();
    // Filter block: 2 keys * 10 bits = 20 < 64, so 64 bits; round(10 ln 2) = 7 probes.
    int filterOffset = expected.size();
    expected.u32(7).u32(64).raw(bloomBits(64, 7, "k1", "k2")).crcFrom(filterOffset);
    int filterLength = expected.size() - filterOffset;
    // Index block: one entry for the one data block, keyed by its last key; from format 4 its
    // first key follows (first_key_length after block_length, first_key after the key).
    int indexOffset = expected.size();
    if (formatVersion >= TableFormat.FORMAT_VERSION_4) {
      expected.u32(2).u64(0).u32(dataLength).u32(2).raw("k2").raw("k1").u32(0).u32(1).crcFrom(indexOffset);
    } else {
      expected.u32(2).u64(0).u32(dataLength).raw("k2").u32(0).u32(1).crcFrom(indexOffset);
    }
    int indexLength = expected.size() - indexOffset;
    // Footer: from format 4 the file number first, under the crc.
    int footerOffset = expected.size();
    if (formatVersion >= TableFormat.FORMAT_VERSION_4) expected.u64(SPEC_FILE_NUMBER);
    expected.u64(indexOffset).u32(indexLength).u64(filterOffset).u32(filterLength)
        .u64(2).u64(7).u64(V1).u32(formatVersion).crcFrom(footerOffset).raw("SHALESST");
    assertThat(expected.size() - footerOffset).isEqualTo(formatVersion >= TableFormat.FORMAT_VERSION_4 ? 72 : 64);
    return expected.toArray();
  }

  private static byte[] compressedByJava(byte codec, byte[] contents) {
    Compressor compressor = codec == TableFormat.CODEC_LZ4 ? new Lz4JavaCompressor() : new ZstdJavaCompressor();
    byte[] out = new byte[compressor.maxCompressedLength(contents.length)];
    int length = compressor.compress(contents, 0, contents.length, out, 0, out.length);
    return Arrays.copyOf(out, length);
  }

  @Test
  void noFilterWhenBitsPerKeyIsZero() throws IOException {
    Path file = dir.resolve("000010.sst");
    TableWriter.write(Vfs.real(), file, 10, List.of(new Entry(bytes("a"), 1, bytes("b"))).iterator(), 4096, 0);
    ByteBuffer footer = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    footer.position((int) Files.size(file) - 64);
    long indexOffset = footer.getLong();
    footer.getInt();
    assertThat(footer.getLong()).as("filter_offset").isEqualTo(indexOffset);
    assertThat(footer.getInt()).as("filter_length").isZero();
    try (Table table = Table.open(Vfs.real(), file, 10)) {
      assertThat(table.get(bytes("a"))).isEqualTo(new Entry(bytes("a"), 1, bytes("b")));
      assertThat(table.get(bytes("c"))).isNull();
    }
  }

  @Test
  void probeCountFollowsTheSpec() {
    assertThat(BloomFilter.numProbes(1)).isEqualTo(1);
    assertThat(BloomFilter.numProbes(10)).isEqualTo(7);
    assertThat(BloomFilter.numProbes(64)).isEqualTo(30);
    assertThat(BloomFilter.bitCount(1, 10)).isEqualTo(64);
    assertThat(BloomFilter.bitCount(100, 10)).isEqualTo(1000);
    assertThat(BloomFilter.bitCount(101, 7)).isEqualTo(712);
    assertThat(BloomFilter.bitCount(1L << 40, 10)).isEqualTo(0xFFFF_FFF8L);
  }

  /** The filter bits from the spec's formula, independently of BloomFilter. */
  private static byte[] bloomBits(int bitCount, int probes, String... keys) {
    byte[] bits = new byte[bitCount / 8];
    for (String key : keys) {
      Hash128 h = Murmur3.hash128(bytes(key), 0);
      for (int i = 0; i < probes; i++) {
        long bit = Long.remainderUnsigned(h.h1() + i * h.h2(), bitCount);
        bits[(int) (bit / 8)] |= (byte) (1 << (bit % 8));
      }
    }
    return bits;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
