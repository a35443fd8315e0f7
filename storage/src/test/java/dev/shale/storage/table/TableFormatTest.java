package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.util.Murmur3;
import dev.shale.storage.util.Murmur3.Hash128;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's bytes against docs/format.md, "Table", spelled out here field by field from the
 * spec (not from the writer's code), so that a writer and reader agreeing on a wrong layout fail.
 */
class TableFormatTest {
  @TempDir Path dir;

  @Test
  void smallTableMatchesTheSpecByteForByte() throws IOException {
    long v1 = 0x0000_0193_0000_0001L;
    List<Entry> records = List.of(
        new Entry(bytes("k1"), v1, bytes("v1")),
        Entry.tombstone(bytes("k2"), 7));
    Path file = dir.resolve("000009.sst");
    TableWriter.write(Vfs.real(), file, 9, records.iterator(), 4096, 10);

    Spec expected = new Spec();
    // Data block at 0: two entries, their offsets, count, crc.
    expected.u32(2).u32(2).u64(v1).u8(1).raw("k1").raw("v1"); // 21 bytes
    expected.u32(2).u32(0).u64(7).u8(2).raw("k2"); // 19 bytes
    expected.u32(0).u32(21).u32(2).crcFrom(0);
    long dataLength = expected.size();
    // Filter block: 2 keys * 10 bits = 20 < 64, so 64 bits; round(10 ln 2) = 7 probes.
    int filterOffset = expected.size();
    expected.u32(7).u32(64).raw(bloomBits(64, 7, "k1", "k2")).crcFrom(filterOffset);
    int filterLength = expected.size() - filterOffset;
    // Index block: one entry for the one data block, keyed by its last key.
    int indexOffset = expected.size();
    expected.u32(2).u64(0).u32(dataLength).raw("k2").u32(0).u32(1).crcFrom(indexOffset);
    int indexLength = expected.size() - indexOffset;
    // Footer.
    int footerOffset = expected.size();
    expected.u64(indexOffset).u32(indexLength).u64(filterOffset).u32(filterLength)
        .u64(2).u64(7).u64(v1).u32(1).crcFrom(footerOffset).raw("SHALESST");

    assertThat(expected.size() - footerOffset).isEqualTo(64);
    assertThat(HexFormat.of().formatHex(Files.readAllBytes(file)))
        .isEqualTo(HexFormat.of().formatHex(expected.toArray()));
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

  /** Little-endian fields appended in order. */
  private static final class Spec {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Spec u8(int v) {
      out.write(v);
      return this;
    }

    Spec u32(long v) {
      return raw(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array());
    }

    Spec u64(long v) {
      return raw(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
    }

    Spec raw(String ascii) {
      return raw(TableFormatTest.bytes(ascii));
    }

    Spec raw(byte[] b) {
      out.writeBytes(b);
      return this;
    }

    /** Appends the crc32c of everything from {@code start}. */
    Spec crcFrom(int start) {
      CRC32C crc = new CRC32C();
      crc.update(out.toByteArray(), start, out.size() - start);
      return u32(crc.getValue());
    }

    int size() {
      return out.size();
    }

    byte[] toArray() {
      return out.toByteArray();
    }
  }
}
