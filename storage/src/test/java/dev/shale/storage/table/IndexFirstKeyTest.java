package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.ReadRecordingVfs;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first key of each block in a format 4 index (docs/format.md, "Index"): a read whose keys a
 * block cannot hold does not read it, so a damaged block fails only the reads that need it.
 */
class IndexFirstKeyTest {
  // Even-numbered keys only: between the last key of a block and the first of the next lies an
  // odd-numbered key that no block holds. No filter, so every get goes to the index.
  private static final int RECORDS = 300;

  @TempDir Path dir;
  private Path file;
  private List<Entry> entries;
  private List<List<byte[]>> keysByBlock;

  @BeforeEach
  void writeTable() throws IOException {
    entries = IntStream.range(0, RECORDS).mapToObj(i -> TableBytes.entry(2 * i, 30)).toList();
    file = dir.resolve("000001.sst");
    TableWriter.write(Vfs.real(), file, 1, entries.iterator(), 256, 0);
    keysByBlock = TableBytes.keysByBlock(file);
    assertThat(keysByBlock).hasSizeGreaterThan(10);
  }

  @Test
  void aGetOfAKeyBelowItsBlocksFirstKeyReadsNoBlock() throws IOException {
    ReadRecordingVfs vfs = new ReadRecordingVfs();
    try (Table table = Table.open(vfs, file, 1)) {
      for (int block = 1; block < keysByBlock.size(); block++) {
        vfs.clear();
        assertThat(table.get(keyBefore(block))).isNull();
        assertThat(vfs.reads()).as("reads of a get between blocks %d and %d", block - 1, block).isEmpty();
      }
      vfs.clear();
      assertThat(table.get(firstKey(3))).isEqualTo(entryOf(firstKey(3)));
      assertThat(vfs.reads()).as("a get of a key the block holds reads it").hasSize(1);
    }
  }

  @Test
  void aRangeEndingAtOrBeforeADamagedBlocksFirstKeyNeverReadsIt() throws IOException {
    int damaged = keysByBlock.size() / 2;
    TableBytes bytes = TableBytes.read(file);
    BlockHandle block = bytes.dataBlocks.get(damaged);
    Path damagedFile = bytes.copy().flip(block.offset() + block.length() / 2).writeTo(dir.resolve("000002.sst"));
    List<Entry> before = entries.subList(0, recordsBefore(damaged));
    try (Table table = Table.open(Vfs.real(), damagedFile, 1)) {
      assertThat(TableRoundTripTest.toList(table.iterator(null, firstKey(damaged))))
          .as("a range ending at the damaged block's first key").containsExactlyElementsOf(before);
      assertThat(TableRoundTripTest.toList(table.iterator(null, keyBefore(damaged))))
          .as("a range ending between the block before and the damaged one").containsExactlyElementsOf(before);
      assertThat(TableRoundTripTest.toList(table.iterator(keyBefore(damaged), firstKey(damaged))))
          .as("a range between the two blocks").isEmpty();
      assertThat(table.get(keyBefore(damaged))).isNull();

      // A read that may need the damaged block fails naming it: a range that reaches into it,
      // a get of its keys, an iteration of the whole table (as a compaction reads).
      byte[] justPastFirst = Arrays.copyOf(firstKey(damaged), firstKey(damaged).length + 1);
      String where = "offset " + block.offset();
      assertThatThrownBy(() -> TableRoundTripTest.toList(table.iterator(null, justPastFirst)))
          .isInstanceOf(CorruptionException.class).hasMessageContaining(where);
      assertThatThrownBy(() -> table.get(firstKey(damaged))).isInstanceOf(CorruptionException.class).hasMessageContaining(where);
      assertThatThrownBy(() -> TableRoundTripTest.toList(table.iterator()))
          .isInstanceOf(CorruptionException.class).hasMessageContaining(where);
    }
  }

  private byte[] firstKey(int block) {
    return keysByBlock.get(block).getFirst();
  }

  // The odd-numbered key just below block's first key: above the last key of the block before.
  private byte[] keyBefore(int block) {
    int first = Integer.parseInt(new String(firstKey(block), StandardCharsets.UTF_8).substring("key-".length()));
    return String.format("key-%06d", first - 1).getBytes(StandardCharsets.UTF_8);
  }

  private int recordsBefore(int block) {
    return keysByBlock.subList(0, block).stream().mapToInt(List::size).sum();
  }

  private Entry entryOf(byte[] key) {
    return entries.stream().filter(e -> Arrays.equals(e.key(), key)).findFirst().orElseThrow();
  }
}
