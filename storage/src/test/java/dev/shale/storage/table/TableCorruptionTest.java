package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A damaged byte anywhere is reported as corruption of the file, never read as data. */
class TableCorruptionTest {
  private static final int RECORDS = 200;

  @TempDir Path dir;
  private Path intact;
  private List<Entry> entries;
  private TableBytes original;
  private List<List<byte[]>> keysByBlock;

  @BeforeEach
  void writeTable() throws IOException {
    entries = IntStream.range(0, RECORDS).mapToObj(i -> TableBytes.entry(i, i % 7)).toList();
    intact = dir.resolve("000001.sst");
    TableWriter.write(Vfs.real(), intact, 1, entries.iterator(), 256, 10);
    original = TableBytes.read(intact);
    keysByBlock = TableBytes.keysByBlock(intact);
    assertThat(keysByBlock).hasSizeGreaterThan(5);
  }

  @Test
  void anyDamagedByteOfADataBlockFailsReadsOfThatBlockOnly() throws IOException {
    int damaged = keysByBlock.size() / 2;
    BlockHandle block = original.dataBlocks.get(damaged);
    for (long position = block.offset(); position < block.end(); position++) {
      Path file = original.copy().flip(position).writeTo(dir.resolve("damaged.sst"));
      try (Table table = Table.open(Vfs.real(), file, 1)) {
        for (byte[] key : keysByBlock.get(damaged)) {
          assertThatThrownBy(() -> table.get(key))
              .as("damage at %d", position)
              .isInstanceOf(CorruptionException.class)
              .hasMessageContaining(file.toString())
              .hasMessageContaining("offset " + block.offset());
        }
        for (int b : new int[] {0, damaged - 1, damaged + 1, keysByBlock.size() - 1}) {
          for (byte[] key : keysByBlock.get(b)) assertThat(table.get(key)).isEqualTo(entryOf(key));
        }
      }
    }
  }

  @Test
  void iterationStopsWithCorruptionAtTheDamagedBlock() throws IOException {
    int damaged = 3;
    BlockHandle block = original.dataBlocks.get(damaged);
    Path file = original.copy().flip(block.offset() + 5).writeTo(dir.resolve("damaged.sst"));
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      Iterator<Entry> it = table.iterator();
      List<Entry> before = new ArrayList<>();
      assertThatThrownBy(() -> {
        while (it.hasNext()) before.add(it.next());
      }).isInstanceOf(CorruptionException.class).hasMessageContaining("offset " + block.offset());
      int recordsBefore = keysByBlock.subList(0, damaged).stream().mapToInt(List::size).sum();
      assertThat(before).containsExactlyElementsOf(entries.subList(0, recordsBefore));
    }
  }

  @Test
  void anyDamagedFooterByteFailsOpen() throws IOException {
    assertEveryByteFailsOpen(original.footerHandle());
  }

  @Test
  void anyDamagedIndexByteFailsOpen() throws IOException {
    assertEveryByteFailsOpen(original.footer.index());
  }

  @Test
  void anyDamagedFilterByteLeavesTheFilterUnusedAndEveryRecordReadable() throws IOException {
    BlockHandle filter = original.footer.filter();
    for (long position = filter.offset(); position < filter.end(); position++) {
      Path file = original.copy().flip(position).writeTo(dir.resolve("damaged.sst"));
      try (Table table = Table.open(Vfs.real(), file, 1)) {
        assertThat(table.filterDamage()).as("damage at %d", position)
            .contains("offset " + filter.offset());
        for (Entry e : entries) assertThat(table.get(e.key())).isEqualTo(e);
        assertThat(table.get("absent".getBytes(StandardCharsets.UTF_8))).isNull();
      }
    }
  }

  @Test
  void truncatedOrExtendedFilesFailOpen() throws IOException {
    int size = original.bytes.length;
    for (int length : new int[] {0, 1, 28, 63, 64, 65, size / 2, size - 64, size - 63, size - 1, size + 1, size + 64}) {
      byte[] bytes = Arrays.copyOf(original.bytes, length);
      Path file = dir.resolve("cut.sst");
      Files.write(file, bytes);
      assertThatThrownBy(() -> Table.open(Vfs.real(), file, 1).close())
          .as("length %d of %d", length, size)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(file.toString());
    }
  }

  @Test
  void exceptionNamesTheFile() throws IOException {
    Path file = original.copy().flip(original.bytes.length - 1).writeTo(dir.resolve("000042.sst"));
    assertThatThrownBy(() -> Table.open(Vfs.real(), file, 42))
        .isInstanceOfSatisfying(CorruptionException.class, e -> assertThat(e.file()).isEqualTo(file))
        .hasMessageContaining("bad magic");
  }

  private void assertEveryByteFailsOpen(BlockHandle region) throws IOException {
    for (long position = region.offset(); position < region.end(); position++) {
      Path file = original.copy().flip(position).writeTo(dir.resolve("damaged.sst"));
      assertThatThrownBy(() -> Table.open(Vfs.real(), file, 1).close())
          .as("damage at %d in %s", position, region)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(file.toString());
    }
  }

  private Entry entryOf(byte[] key) {
    return entries.stream().filter(e -> Arrays.equals(e.key(), key)).findFirst().orElseThrow();
  }
}
