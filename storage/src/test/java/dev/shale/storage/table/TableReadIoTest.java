package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Compression;
import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.ErrorInjectingVfs;
import dev.shale.storage.ReadRecordingVfs;
import dev.shale.storage.ReadRecordingVfs.Read;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.VfsOp;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a table reads from the disk (docs/design.md, "Reading tables"): a get one read of exactly
 * the one block it needs, and nothing for a key its filter rules out or a block in the cache; an
 * iterator large reads in order, each block once; a failed or short read an error, never a wrong
 * record.
 */
class TableReadIoTest {
  private static final int RECORDS = 4000;
  private static final int VALUE_BYTES = 600; // about 7 records a 4 KiB block: ~570 blocks, 2.4 MB

  @TempDir Path dir;

  @Test
  void aGetReadsExactlyItsOneBlockInOneRead() throws IOException {
    Path file = writeTable(Compression.LZ4);
    ReadRecordingVfs vfs = new ReadRecordingVfs();
    try (Table table = Table.open(vfs, file, 1)) {
      vfs.clear();
      for (int i = 0; i < RECORDS; i += 97) {
        byte[] key = key(i);
        assertThat(table.get(key)).isEqualTo(record(i));
        BlockHandle block = table.blockHandle(table.findBlock(key));
        assertThat(vfs.reads()).as("the reads of get(" + i + ")").containsExactly(new Read(file, block.offset(), block.length()));
        assertThat(vfs.prefetches()).as("a get reads nothing ahead").isEmpty();
        vfs.clear();
      }
    }
  }

  @Test
  void aKeyTheFilterRulesOutAndABlockInTheCacheCostNoRead() throws IOException {
    Path file = writeTable(Compression.NONE);
    ReadRecordingVfs vfs = new ReadRecordingVfs();
    BlockCache cache = BlockCache.ofCapacity(8 << 20);
    try (Table table = Table.open(vfs, file, 1, cache)) {
      vfs.clear();
      int ruledOut = 0;
      for (int i = 0; i < 1000; i++) {
        byte[] absent = ("absent-" + i).getBytes(StandardCharsets.UTF_8);
        if (table.mayContain(absent)) continue;
        ruledOut++;
        assertThat(table.get(absent)).isNull();
      }
      assertThat(ruledOut).as("keys the filter rules out (10 bits a key: about 99%)").isGreaterThan(950);
      assertThat(vfs.reads()).as("reads for keys the filter rules out").isEmpty();

      assertThat(table.get(key(7))).isEqualTo(record(7));
      assertThat(vfs.reads()).hasSize(1);
      assertThat(table.get(key(7))).isEqualTo(record(7));
      assertThat(table.get(key(8))).as("in the same block").isEqualTo(record(8));
      assertThat(vfs.reads()).as("the second and third gets find the block in the cache").hasSize(1);
    }
    assertThat(cache.heldBytes()).as("a closed table leaves no block in the cache").isZero();
  }

  @Test
  void aScanReadsEachBlockOnceInWindowsThatGrowTo256KiB() throws IOException {
    Path file = writeTable(Compression.LZ4);
    ReadRecordingVfs vfs = new ReadRecordingVfs();
    try (Table table = Table.open(vfs, file, 1)) {
      vfs.clear();
      assertThat(toList(table.iterator())).hasSize(RECORDS);
      List<Read> reads = vfs.reads();
      assertContiguousFromZeroTo(reads, table.dataEnd());
      assertThat(reads.getFirst().bytes()).as("the first read: just the first block").isEqualTo(table.blockHandle(0).length());
      // Each window holds the whole blocks that fit: a little less than its size.
      assertThat(reads.get(1).bytes()).as("then 16 KiB").isBetween(12L << 10, 16L << 10);
      assertThat(reads.get(2).bytes()).as("doubling").isBetween(28L << 10, 32L << 10);
      for (Read read : reads) {
        assertThat(read.bytes()).as("no window passes 256 KiB").isLessThanOrEqualTo(256 << 10);
      }
      assertThat(reads).as("the reads of a 2.4 MB table: 5 growing windows, then 256 KiB each").hasSizeLessThan(16);
      // Once the windows reach 256 KiB (after the 128 KiB one, the fifth read), each read asks the
      // disk for the next window, which the next read then takes; before, a short scan would not use it.
      List<Read> prefetches = vfs.prefetches();
      assertThat(prefetches).hasSize(reads.size() - 5);
      for (int i = 0; i < prefetches.size(); i++) {
        Read next = reads.get(i + 5);
        assertThat(prefetches.get(i).position()).as("prefetch %d starts where read %d does", i, i + 5).isEqualTo(next.position());
        assertThat(prefetches.get(i).bytes()).as("and covers its window").isGreaterThanOrEqualTo(next.bytes());
      }
    }
  }

  @Test
  void aCompactionsIteratorReadsTwoMiBAtATime() throws IOException {
    Path file = writeTable(Compression.NONE);
    ReadRecordingVfs vfs = new ReadRecordingVfs();
    try (Table table = Table.open(vfs, file, 1)) {
      vfs.clear();
      try (var records = table.iterator(null, null, ReadAhead.COMPACTION)) {
        int n = 0;
        while (records.hasNext()) {
          assertThat(records.next()).isEqualTo(record(n++));
        }
        assertThat(n).isEqualTo(RECORDS);
      }
      List<Read> reads = vfs.reads();
      assertContiguousFromZeroTo(reads, table.dataEnd());
      for (Read read : reads.subList(0, reads.size() - 1)) {
        assertThat(read.bytes()).as("2 MiB windows, less what a block would pass").isBetween((2L << 20) - 8192, 2L << 20);
      }
      assertThat(vfs.prefetches()).as("from the first window on, each asks for the next")
          .extracting(Read::position).containsExactlyElementsOf(reads.subList(1, reads.size()).stream().map(Read::position).toList());
    }
  }

  @Test
  void aFailedReadIsAStorageErrorNamingTheFileAndTheNextReadWorks() throws IOException {
    Path file = writeTable(Compression.LZ4);
    ErrorInjectingVfs vfs = new ErrorInjectingVfs(1);
    try (Table table = Table.open(vfs, file, 1, BlockCache.ofCapacity(8 << 20))) {
      vfs.inject(ErrorInjectingVfs.Fault.on("*.sst", VfsOp.READ));
      assertThatThrownBy(() -> table.get(key(5)))
          .isInstanceOf(StorageException.class)
          .isNotInstanceOf(CorruptionException.class) // the disk failed; the table is not damaged
          .hasMessageContaining(file.toString())
          .hasMessageContaining("Input/output error");
      try (EntryIterator scan = table.iterator()) {
        assertThatThrownBy(scan::hasNext).isInstanceOf(StorageException.class).hasMessageContaining(file.toString());
      }

      vfs.clear();
      assertThat(table.get(key(5))).as("nothing of the failed read was kept").isEqualTo(record(5));
      assertThat(toList(table.iterator())).hasSize(RECORDS);
    }
  }

  @Test
  void aTableCutShortAfterItOpenedIsCorruptionWhereTheBlockIsMissing() throws IOException {
    Path file = writeTable(Compression.NONE);
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      BlockHandle last = table.blockHandle(table.blockCount() - 1);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.truncate(last.offset() + 10);
      }
      byte[] lastKey = key(RECORDS - 1);
      assertThatThrownBy(() -> table.get(lastKey))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("past the end of the file");
      assertThat(table.get(key(0))).as("blocks before the cut still read").isEqualTo(record(0));
    }
  }

  private static void assertContiguousFromZeroTo(List<Read> reads, long end) {
    long next = 0;
    for (Read read : reads) {
      assertThat(read.position()).as("each block read once, in order").isEqualTo(next);
      next += read.bytes();
    }
    assertThat(next).as("the reads cover the data blocks, and nothing after them").isEqualTo(end);
  }

  private Path writeTable(Compression compression) throws IOException {
    Path file = dir.resolve("000001.sst");
    List<Entry> records = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) records.add(record(i));
    TableWriter.write(Vfs.real(), file, 1, records.iterator(), 4096, 10, compression);
    return file;
  }

  private static byte[] key(int i) {
    return String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static Entry record(int i) {
    byte[] value = new byte[VALUE_BYTES];
    new Random(i).nextBytes(value); // incompressible: blocks stay their size under LZ4
    for (int b = 0; b < VALUE_BYTES / 2; b++) value[b] = 'v'; // half text: they compress some
    return new Entry(key(i), 1000 + i, value);
  }

  private static List<Entry> toList(Iterator<Entry> records) {
    List<Entry> all = new ArrayList<>();
    records.forEachRemaining(all::add);
    return all;
  }
}
