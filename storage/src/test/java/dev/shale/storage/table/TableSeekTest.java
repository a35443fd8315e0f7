package dev.shale.storage.table;

import static dev.shale.storage.table.TableRoundTripTest.randomRecords;
import static dev.shale.storage.table.TableRoundTripTest.toList;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.Vfs;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Table.iterator(from) and iterator(from, to) against a TreeMap of the records written, from every
 * seek point: before the first key, at each key, between keys, after the last; on tables with
 * random block sizes (many small blocks to a few large ones). Replay a failure with
 * {@code -Dshale.seed=<seed printed by the run>}.
 */
class TableSeekTest {
  private static final int TABLES = 8;

  @TempDir Path dir;

  @Test
  void everySeekPointStartsAtTheFirstKeyNotBelowIt() throws IOException {
    long seed = TestSeed.forTest("everySeekPointStartsAtTheFirstKeyNotBelowIt");
    Random random = new Random(seed);
    for (int t = 0; t < TABLES; t++) {
      NavigableMap<byte[], Entry> records = randomRecords(random, 1 + random.nextInt(600));
      int blockSizeBytes = 64 + random.nextInt(t % 2 == 0 ? 512 : 16 * 1024);
      Path file = dir.resolve(t + ".sst");
      TableWriter.write(Vfs.real(), file, t + 1, records.values().iterator(), blockSizeBytes, 10);
      String context = "seed " + seed + ", table " + t + ", block " + blockSizeBytes + " B";
      try (Table table = Table.open(Vfs.real(), file, t)) {
        List<byte[]> points = seekPoints(records);
        for (int p = 0; p < points.size(); p++) {
          byte[] from = points.get(p);
          // The first few records (across a block boundary where the seek lands near one's end);
          // every 16th seek point, the whole rest of the table.
          int limit = p % 16 == 0 ? Integer.MAX_VALUE : 6;
          List<Entry> expected = records.tailMap(from, true).values().stream().limit(limit).toList();
          assertThat(take(table.iterator(from), limit))
              .as("%s, from %s", context, Arrays.toString(from))
              .containsExactlyElementsOf(expected);
        }
        assertThat(toList(table.iterator(null))).as(context).containsExactlyElementsOf(records.values());
      }
    }
  }

  @Test
  void rangesStopBeforeTheirEndKey() throws IOException {
    long seed = TestSeed.forTest("rangesStopBeforeTheirEndKey");
    Random random = new Random(seed);
    for (int t = 0; t < TABLES; t++) {
      NavigableMap<byte[], Entry> records = randomRecords(random, 1 + random.nextInt(600));
      int blockSizeBytes = 64 + random.nextInt(4096);
      Path file = dir.resolve(t + ".sst");
      TableWriter.write(Vfs.real(), file, t + 1, records.values().iterator(), blockSizeBytes, 10);
      List<byte[]> points = seekPoints(records);
      try (Table table = Table.open(Vfs.real(), file, t)) {
        for (int i = 0; i < 400; i++) {
          byte[] from = random.nextInt(10) == 0 ? null : points.get(random.nextInt(points.size()));
          byte[] to = random.nextInt(10) == 0 ? null : points.get(random.nextInt(points.size()));
          assertThat(toList(table.iterator(from, to)))
              .as("seed %d, table %d, [%s, %s)", seed, t, Arrays.toString(from), Arrays.toString(to))
              .containsExactlyElementsOf(expectedRange(records, from, to));
        }
      }
    }
  }

  @Test
  void aSeekReadsOnlyTheBlockWhereTheRangeStarts() throws IOException {
    List<Entry> entries = IntStream.range(0, 500).mapToObj(i -> TableBytes.entry(i, 20)).toList();
    Path file = dir.resolve("1.sst");
    TableWriter.write(Vfs.real(), file, 1, entries.iterator(), 256, 10);
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      assertThat(table.blockCount()).isGreaterThan(20);
      Iterator<Entry> it = table.iterator(entries.get(400).key());
      assertThat(table.blockReadCount()).as("nothing read before hasNext").isZero();
      assertThat(it.next()).isEqualTo(entries.get(400));
      assertThat(table.blockReadCount()).isEqualTo(1);
      Iterator<Entry> bounded = table.iterator(entries.get(10).key(), entries.get(12).key());
      assertThat(toList(bounded)).containsExactly(entries.get(10), entries.get(11));
      assertThat(table.blockReadCount()).isLessThanOrEqualTo(3);
    }
  }

  @Test
  void aDamagedBlockFoundBySeekingIsReportedWithTheFile() throws IOException {
    List<Entry> entries = IntStream.range(0, 200).mapToObj(i -> TableBytes.entry(i, 7)).toList();
    Path intact = dir.resolve("1.sst");
    TableWriter.write(Vfs.real(), intact, 1, entries.iterator(), 256, 10);
    TableBytes original = TableBytes.read(intact);
    List<List<byte[]>> keysByBlock = TableBytes.keysByBlock(intact);
    int damaged = keysByBlock.size() / 2;
    BlockHandle block = original.dataBlocks.get(damaged);
    Path file = original.copy().flip(block.offset() + 5).writeTo(dir.resolve("damaged.sst"));
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      Iterator<Entry> it = table.iterator(keysByBlock.get(damaged).getFirst());
      assertThatThrownBy(it::hasNext)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("offset " + block.offset());
      byte[] pastDamage = keysByBlock.get(damaged + 1).getFirst();
      assertThat(toList(table.iterator(pastDamage)))
          .containsExactlyElementsOf(entries.subList(indexOf(entries, pastDamage), entries.size()));
    }
  }

  /** Before the first key, each key, just after each key (between it and the next), after the last. */
  private static List<byte[]> seekPoints(NavigableMap<byte[], Entry> records) {
    List<byte[]> points = new ArrayList<>();
    points.add(new byte[0]);
    for (byte[] key : records.keySet()) {
      points.add(key.clone());
      points.add(Arrays.copyOf(key, key.length + 1)); // the smallest key above this one
      if (key.length > 0 && key[key.length - 1] != 0) {
        byte[] below = key.clone();
        below[below.length - 1]--;
        points.add(below);
      }
    }
    byte[] afterLast = Arrays.copyOf(records.lastKey(), records.lastKey().length + 3);
    Arrays.fill(afterLast, records.lastKey().length, afterLast.length, (byte) 0xFF);
    points.add(afterLast);
    return points;
  }

  private static List<Entry> expectedRange(NavigableMap<byte[], Entry> records, byte[] from, byte[] to) {
    List<Entry> expected = new ArrayList<>();
    for (Entry e : records.values()) {
      if (from != null && Keys.compare(e.key(), from) < 0) continue;
      if (to != null && Keys.compare(e.key(), to) >= 0) break;
      expected.add(e);
    }
    return expected;
  }

  private static List<Entry> take(Iterator<Entry> iterator, int limit) {
    List<Entry> out = new ArrayList<>();
    while (out.size() < limit && iterator.hasNext()) out.add(iterator.next());
    return out;
  }

  private static int indexOf(List<Entry> entries, byte[] key) {
    for (int i = 0; i < entries.size(); i++) {
      if (Arrays.equals(entries.get(i).key(), key)) return i;
    }
    throw new AssertionError("no such key");
  }
}
