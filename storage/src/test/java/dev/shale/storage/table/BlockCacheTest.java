package dev.shale.storage.table;

import static dev.shale.storage.table.TableRoundTripTest.toList;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Compression;
import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine's cache of checked, decompressed blocks (docs/design.md, "Compression and the block cache"). */
class BlockCacheTest {
  @TempDir Path dir;

  @Test
  void aHotBlockIsReadFromTheFileOnceAndThenFromTheCache() throws IOException {
    for (Compression compression : Compression.values()) {
      NavigableMap<byte[], Entry> records = CompressionTest.textRecords(new Random(3), 500);
      Path file = write(records, compression);
      BlockCache cache = BlockCache.ofCapacity(1 << 20);
      try (Table table = Table.open(Vfs.real(), file, 1, cache)) {
        Entry hot = records.firstEntry().getValue();
        for (int i = 0; i < 100; i++) assertThat(table.get(hot.key())).as("%s", compression).isEqualTo(hot);
        assertThat(cache.reads()).isEqualTo(100);
        assertThat(cache.hits()).as("%s", compression).isEqualTo(99);
      }
    }
  }

  @Test
  void theCacheStaysWithinItsCapacityAndEvictsToGetThere() throws IOException {
    NavigableMap<byte[], Entry> records = CompressionTest.textRecords(new Random(5), 20_000);
    Path file = write(records, Compression.LZ4);
    long capacity = 64 << 10;
    BlockCache cache = BlockCache.ofCapacity(capacity);
    try (Table table = Table.open(Vfs.real(), file, 1, cache)) {
      assertThat(table.blockCount() * 4096L).as("the table's blocks are far more than the cache holds").isGreaterThan(8 * capacity);
      long[] missesPerPass = new long[2];
      for (int pass = 0; pass < 2; pass++) {
        long readsBefore = cache.reads();
        long hitsBefore = cache.hits();
        for (Entry e : records.values()) {
          assertThat(table.get(e.key())).isEqualTo(e);
          assertThat(cache.usedBytes()).isLessThanOrEqualTo(capacity);
        }
        missesPerPass[pass] = (cache.reads() - readsBefore) - (cache.hits() - hitsBefore);
      }
      assertThat(cache.usedBytes()).isGreaterThan(capacity / 2);
      // Reads in key order miss each block at least once (more while W-TinyLFU's admission
      // prefers the blocks it has seen more often); the second pass misses them again (an
      // unbounded cache would miss none): the first blocks were evicted to make room for the later.
      assertThat(missesPerPass[0]).isGreaterThanOrEqualTo(table.blockCount());
      assertThat(missesPerPass[1]).isGreaterThan(table.blockCount() / 2);
      assertThat(cache.hits()).as("reads of a block right after it was cached").isPositive();
    }
  }

  @Test
  void iteratorsUseTheCacheButDoNotFillIt() throws IOException {
    NavigableMap<byte[], Entry> records = CompressionTest.textRecords(new Random(9), 2000);
    Path file = write(records, Compression.LZ4);
    BlockCache cache = BlockCache.ofCapacity(1 << 20);
    try (Table table = Table.open(Vfs.real(), file, 1, cache)) {
      assertThat(toList(table.iterator())).containsExactlyElementsOf(records.values());
      assertThat(cache.usedBytes()).as("a scan adds nothing").isZero();
      assertThat(cache.hits()).isZero();

      Entry first = records.firstEntry().getValue();
      assertThat(table.get(first.key())).isEqualTo(first);
      assertThat(cache.usedBytes()).isPositive();
      long hitsBefore = cache.hits();
      assertThat(toList(table.iterator())).containsExactlyElementsOf(records.values());
      assertThat(cache.hits()).as("the scan found the block the get cached").isEqualTo(hitsBefore + 1);
    }
  }

  @Test
  void aClosedTableLeavesNothingInTheCache() throws IOException {
    NavigableMap<byte[], Entry> records = CompressionTest.textRecords(new Random(13), 2000);
    BlockCache cache = BlockCache.ofCapacity(1 << 20);
    Path a = write(records, Compression.LZ4);
    Path b = dir.resolve("b.sst");
    TableWriter.write(Vfs.real(), b, 2, records.values().iterator(), 4096, 10, Compression.NONE);
    try (Table first = Table.open(Vfs.real(), a, 1, cache)) {
      Table second = Table.open(Vfs.real(), b, 2, cache);
      for (Entry e : records.values()) {
        assertThat(first.get(e.key())).isEqualTo(e);
        assertThat(second.get(e.key())).isEqualTo(e);
      }
      long both = cache.usedBytes();
      second.close();
      assertThat(cache.usedBytes()).isPositive().isLessThan(both);
      for (Entry e : records.values()) assertThat(first.get(e.key())).isEqualTo(e);
    }
    assertThat(cache.usedBytes()).isZero();
  }

  @Test
  void capacityZeroCachesNothingAndStillCountsReads() throws IOException {
    NavigableMap<byte[], Entry> records = CompressionTest.textRecords(new Random(17), 300);
    BlockCache cache = BlockCache.ofCapacity(0);
    try (Table table = Table.open(Vfs.real(), write(records, Compression.ZSTD), 1, cache)) {
      Entry e = records.lastEntry().getValue();
      for (int i = 0; i < 10; i++) assertThat(table.get(e.key())).isEqualTo(e);
    }
    assertThat(cache.reads()).isEqualTo(10);
    assertThat(cache.hits()).isZero();
    assertThat(cache.usedBytes()).isZero();
    assertThatThrownBy(() -> BlockCache.ofCapacity(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void threadsSharingATinyCacheAllSeeExactRecords() throws Exception {
    long seed = TestSeed.forTest("threadsSharingATinyCacheAllSeeExactRecords");
    NavigableMap<byte[], Entry> records = CompressionTest.textRecords(new Random(seed), 5000);
    List<Entry> expected = new ArrayList<>(records.values());
    // A few blocks: the cache evicts while other threads still read the blocks it drops, so a
    // block freed too early would show as a wrong record (its memory reused).
    BlockCache cache = BlockCache.ofCapacity(32 << 10);
    try (Table table = Table.open(Vfs.real(), write(records, Compression.LZ4), 1, cache)) {
      assertThat(TableConcurrentReadTest.readConcurrently(table, expected, seed)).as("seed %d", seed).isEmpty();
      assertThat(cache.heldBytes()).as("once the reads end, only the cache holds blocks").isLessThanOrEqualTo(cache.usedBytes());
    }
    assertThat(cache.hits()).isPositive();
    assertThat(cache.heldBytes()).as("no block held once the table is closed").isZero();
  }

  @Test
  void filtersAndIndexesChargedToTheCacheLeaveTheBlocksWhatIsLeft() throws IOException {
    NavigableMap<byte[], Entry> records = CompressionTest.textRecords(new Random(21), 20_000);
    Path file = write(records, Compression.NONE);
    long capacity = 256 << 10;
    BlockCache charged = BlockCache.withResidentCharged(capacity);
    BlockCache apart = BlockCache.ofCapacity(capacity);
    try (Table table = Table.open(Vfs.real(), file, 1, charged);
        Table same = Table.open(Vfs.real(), file, 2, apart)) {
      long resident = charged.residentBytes();
      assertThat(resident).as("the filter and index, resident").isPositive().isEqualTo(apart.residentBytes());
      for (Entry e : records.values()) {
        assertThat(table.get(e.key())).isEqualTo(e);
        assertThat(same.get(e.key())).isEqualTo(e);
      }
      assertThat(charged.usedBytes()).as("blocks get what the filter and index leave").isLessThanOrEqualTo(capacity - resident);
      assertThat(apart.usedBytes()).as("uncharged, blocks get it all").isGreaterThan(capacity - resident);
    }
    assertThat(charged.residentBytes()).as("given back when the table closes").isZero();
  }

  private Path write(NavigableMap<byte[], Entry> records, Compression compression) throws IOException {
    Path file = dir.resolve(compression + "-" + records.size() + ".sst");
    TableWriter.write(Vfs.real(), file, 1, records.values().iterator(), 4096, 10, compression);
    return file;
  }
}
