package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filter through the table: present keys always pass, absent keys inside the table's key range
 * (so that without a filter each would cost a block read) rarely do.
 */
class BloomFilterTest {
  private static final int KEYS = 20_000;
  private static final int ABSENT_PROBES = 100_000;

  @TempDir Path dir;

  @Test
  void noFalseNegativesAndFalsePositivesNearTheoryAtTenBitsPerKey() throws IOException {
    try (Table table = writeEvenKeys("000001.sst", 10)) {
      for (int i = 0; i < KEYS; i++) assertThat(table.get(key(2 * i))).as("key %d", 2 * i).isNotNull();

      long readsBefore = table.blockReadCount();
      for (int i = 0; i < ABSENT_PROBES; i++) assertThat(table.get(key(oddKeyInRange(i)))).isNull();
      double falsePositiveRate = (double) (table.blockReadCount() - readsBefore) / ABSENT_PROBES;

      // Theory for 10 bits/key and 7 probes: (1 - e^(-7/10))^7, about 0.82%.
      System.out.println("BloomFilterTest false-positive rate " + falsePositiveRate);
      assertThat(falsePositiveRate).isLessThan(0.03);
    }
  }

  @Test
  void withoutAFilterEveryAbsentKeyWithinABlocksKeysCostsABlockRead() throws IOException {
    try (Table table = writeEvenKeys("000002.sst", 0)) {
      // A key between two blocks (above one's last key, below the next one's first) is in no
      // block, as the index's first keys show: it costs no read (docs/format.md, "Index").
      List<List<byte[]>> blocks = TableBytes.keysByBlock(dir.resolve("000002.sst"));
      long readsBefore = table.blockReadCount();
      int withinABlock = 0;
      for (int i = 0; i < 1000; i++) {
        byte[] key = key(oddKeyInRange(i));
        assertThat(table.get(key)).isNull();
        if (blocks.stream().anyMatch(b -> Arrays.compareUnsigned(b.getFirst(), key) < 0 && Arrays.compareUnsigned(key, b.getLast()) < 0)) {
          withinABlock++;
        }
      }
      assertThat(withinABlock).as("probes within a block's keys").isGreaterThan(900);
      assertThat(table.blockReadCount() - readsBefore).isEqualTo(withinABlock);
    }
  }

  @Test
  void aTinyTableStillGetsSixtyFourBits() throws IOException {
    Path file = dir.resolve("000003.sst");
    TableWriter.write(Vfs.real(), file, 3, List.of(new Entry(key(1), 1, new byte[0])).iterator(), 4096, 1);
    try (Table table = Table.open(Vfs.real(), file, 3)) {
      assertThat(table.get(key(1))).isNotNull();
    }
  }

  private Table writeEvenKeys(String name, int bitsPerKey) throws IOException {
    List<Entry> entries = new ArrayList<>(KEYS);
    for (int i = 0; i < KEYS; i++) entries.add(new Entry(key(2 * i), i + 1, new byte[] {(byte) i}));
    Path file = dir.resolve(name);
    TableWriter.write(Vfs.real(), file, 1, entries.iterator(), 4096, bitsPerKey);
    return Table.open(Vfs.real(), file, 1);
  }

  /** Odd numbers spread over [1, 2 * KEYS): between two stored keys, never one of them. */
  private static int oddKeyInRange(int i) {
    return 2 * (int) ((i * 7919L) % KEYS) + 1;
  }

  private static byte[] key(int n) {
    return ByteBuffer.allocate(6).put((byte) 'k').put((byte) '/').putInt(n).array();
  }
}
