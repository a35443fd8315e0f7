package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage that passes its crc (damage followed by a recomputed crc, as a buggy writer or a
 * crafted file would produce): lengths, counts and offsets read from disk are validated, so the
 * reader throws CorruptionException and never another exception, and a get never returns a record
 * of another key. Replay with -Dshale.seed=<the printed seed>.
 */
class CraftedTableTest {
  // A format 4 index_entry of this table's 10-byte keys: header 20, last key 10, first key 10.
  private static final int INDEX_ENTRY_BYTES = 40;
  private static final int[] GARBAGE_U32 = {0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFF0, 0x0100_0000, 0};

  @TempDir Path dir;
  private List<Entry> entries;
  private TableBytes original;

  @BeforeEach
  void writeTable() throws IOException {
    entries = IntStream.range(0, 120).mapToObj(i -> TableBytes.entry(i, i % 5)).toList();
    Path file = dir.resolve("000001.sst");
    TableWriter.write(Vfs.real(), file, 1, entries.iterator(), 300, 10);
    original = TableBytes.read(file);
  }

  @Test
  void hugeKeyLengthInADataBlock() throws IOException {
    BlockHandle block = original.dataBlocks.get(1);
    // The block's first entry (a restart point; the table is written uncompressed) keeps
    // shared = 0; its unshared becomes the 5-byte varint of 0xFFFF_FFF0.
    TableBytes damaged = original.copy();
    int[] varint = {0xF0, 0xFF, 0xFF, 0xFF, 0x0F};
    for (int i = 0; i < varint.length; i++) damaged.putU8(block.offset() + 1 + i, varint[i]);
    Path file = damaged.resealBlock(block).writeTo(dir.resolve("bad.sst"));
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      byte[] firstKeyOfBlock = firstKeyOfBlock(1);
      assertThatThrownBy(() -> table.get(firstKeyOfBlock)).isInstanceOf(CorruptionException.class).hasMessageContaining("runs past");
    }
  }

  @Test
  void hugeCountInADataBlock() throws IOException {
    BlockHandle block = original.dataBlocks.get(0);
    Path file = original.copy().putU32(block.end() - TableFormat.CRC_BYTES - TableFormat.CODEC_BYTES - TableFormat.COUNT_BYTES, 0x7FFF_FFFF).resealBlock(block).writeTo(dir.resolve("bad.sst"));
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      assertThatThrownBy(() -> table.get(entries.get(0).key())).isInstanceOf(CorruptionException.class).hasMessageContaining("count");
    }
  }

  @Test
  void indexPointingOutsideTheData() throws IOException {
    BlockHandle index = original.footer.index();
    // The first index entry's block_length (after key_length:u32 block_offset:u64).
    Path file = original.copy().putU32(index.offset() + 12, 0x7FFF_0000).resealBlock(index).writeTo(dir.resolve("bad.sst"));
    assertThatThrownBy(() -> Table.open(Vfs.real(), file, 1)).isInstanceOf(CorruptionException.class).hasMessageContaining("index entry 0");
  }

  @Test
  void indexFirstKeyAboveItsBlocksLastKey() throws IOException {
    // index_entry 1's first key (every entry is 40 bytes: a 20-byte header, a 10-byte last key,
    // a 10-byte first key), "key-..." made "key-\x7f...": above every key of the table.
    long firstKey = original.footer.index().offset() + INDEX_ENTRY_BYTES + 30;
    Path file = original.copy().putU8(firstKey + 4, 0x7F).resealBlock(original.footer.index()).writeTo(dir.resolve("bad.sst"));
    assertThatThrownBy(() -> Table.open(Vfs.real(), file, 1)).isInstanceOf(CorruptionException.class)
        .hasMessageContaining("index entry 1: the block's first key is above its last key");
  }

  @Test
  void indexFirstKeyNotAboveTheBlockBefore() throws IOException {
    // index_entry 1's first key made index_entry 0's last key: the two blocks would share a key.
    long index = original.footer.index().offset();
    TableBytes damaged = original.copy();
    for (int i = 0; i < 10; i++) damaged.putU8(index + INDEX_ENTRY_BYTES + 30 + i, original.bytes[Math.toIntExact(index + 20 + i)]);
    Path file = damaged.resealBlock(original.footer.index()).writeTo(dir.resolve("bad.sst"));
    assertThatThrownBy(() -> Table.open(Vfs.real(), file, 1)).isInstanceOf(CorruptionException.class)
        .hasMessageContaining("index entry 1: the block's first key is not above the last key of the block before");
  }

  @Test
  void footerPointingElsewhere() throws IOException {
    Path file = original.copy().putU32(original.footerFieldsOffset(), 3).resealFooter().writeTo(dir.resolve("bad.sst"));
    assertThatThrownBy(() -> Table.open(Vfs.real(), file, 1)).isInstanceOf(CorruptionException.class).hasMessageContaining("index block");
  }

  @Test
  void randomSealedGarbageOnlyEverRaisesCorruption() throws IOException {
    long seed = Long.getLong("shale.seed", new Random().nextLong());
    System.out.println("CraftedTableTest seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    Random random = new Random(seed);
    for (int round = 0; round < 400; round++) {
      TableBytes damaged = original.copy();
      BlockHandle region = damage(damaged, random);
      Path file = damaged.writeTo(dir.resolve("fuzz.sst"));
      try {
        readEverything(file);
      } catch (CorruptionException expected) {
        // The one acceptable failure.
      } catch (Throwable t) {
        throw new AssertionError("seed " + seed + " round " + round + ", damage in " + region + ": " + t, t);
      }
    }
  }

  /** Damages one region (a data block, the filter, the index or the footer) and reseals its crc. */
  private BlockHandle damage(TableBytes bytes, Random random) {
    BlockHandle region = switch (random.nextInt(4)) {
      case 0 -> original.footer.filter();
      case 1 -> original.footer.index();
      case 2 -> original.footerHandle();
      default -> original.dataBlocks.get(random.nextInt(original.dataBlocks.size()));
    };
    boolean footer = region.equals(original.footerHandle());
    long coveredBytes = region.length() - (footer ? 12 : 4); // a footer's crc and magic, a block's crc
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      long at = region.offset() + random.nextLong(coveredBytes);
      if (random.nextBoolean() && at + 4 <= region.offset() + coveredBytes) {
        bytes.putU32(at, GARBAGE_U32[random.nextInt(GARBAGE_U32.length)]);
      } else {
        bytes.flip(at);
      }
    }
    if (footer) bytes.resealFooter();
    else bytes.resealBlock(region);
    return region;
  }

  private void readEverything(Path file) throws IOException {
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      for (Entry e : entries) {
        Entry found = table.get(e.key());
        if (found != null) assertThat(found.key()).isEqualTo(e.key());
      }
      assertThat(table.get("absent".getBytes(StandardCharsets.UTF_8))).isNull();
      Iterator<Entry> it = table.iterator();
      while (it.hasNext()) it.next();
    }
  }

  private byte[] firstKeyOfBlock(int block) throws IOException {
    return TableBytes.keysByBlock(dir.resolve("000001.sst")).get(block).getFirst();
  }
}
