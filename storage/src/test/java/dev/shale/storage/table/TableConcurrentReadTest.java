package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One open table read by several threads at once. Replay with -Dshale.seed=<the printed seed>. */
class TableConcurrentReadTest {
  @TempDir Path dir;

  @Test
  void threadsReadingOneTableAllSeeExactRecords() throws Exception {
    long seed = Long.getLong("shale.seed", new Random().nextLong());
    System.out.println("TableConcurrentReadTest seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    NavigableMap<byte[], Entry> records = TableRoundTripTest.randomRecords(new Random(seed), 5000);
    List<Entry> expected = new ArrayList<>(records.values());
    Path file = dir.resolve("000001.sst");
    TableWriter.write(Vfs.real(), file, 1, expected.iterator(), 1024, 10);
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      assertThat(readConcurrently(table, expected, seed)).as("seed " + seed).isEmpty();
    }
  }

  /**
   * What four threads found wrong reading {@code table} at once, each 20,000 gets of random keys
   * of {@code expected} (its records in order) and one iteration of the whole table.
   */
  static List<String> readConcurrently(Table table, List<Entry> expected, long seed) throws InterruptedException {
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Random random = new Random(seed + t);
      readers.add(Thread.ofPlatform().start(() -> {
        for (int i = 0; i < 20_000; i++) {
          Entry want = expected.get(random.nextInt(expected.size()));
          Entry got = table.get(want.key().clone());
          if (!want.equals(got)) failures.add("wanted " + want + ", got " + got);
        }
        if (!TableRoundTripTest.toList(table.iterator()).equals(expected)) failures.add("iterator differs");
      }));
    }
    for (Thread t : readers) assertThat(t.join(Duration.ofMinutes(1))).as("reader finished").isTrue();
    return List.copyOf(failures);
  }
}
