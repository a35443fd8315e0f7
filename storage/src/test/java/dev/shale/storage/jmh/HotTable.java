package dev.shale.storage.jmh;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import dev.shale.storage.table.Table;
import dev.shale.storage.table.TableWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Iterator;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A table of {@value #RECORDS} records (16-byte keys, 100-byte values, 4 KiB blocks, 10 Bloom
 * bits per key, about 13 MiB) written once per fork to a temporary directory and kept open:
 * "hot", its pages in the page cache after the first touch. Also the keys the benchmarks probe,
 * drawn in advance so that making them is not measured.
 */
@State(Scope.Benchmark)
public class HotTable {
  static final int RECORDS = 100_000;
  static final int PROBES = 4096; // a power of two: the index wraps with a mask

  Table table;
  byte[][] presentKeys;
  byte[][] missingKeys;
  private Path directory;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    directory = Files.createTempDirectory("shale-jmh-table");
    Path file = directory.resolve("000001.sst");
    SplittableRandom random = new SplittableRandom(42);
    Iterator<Entry> records = LongStream.range(0, RECORDS).mapToObj(i -> BenchKeys.entry(i, 100, random)).iterator();
    TableWriter.write(Vfs.real(), file, 1, records, 4096, 10);
    table = Table.open(Vfs.real(), file, 1);
    presentKeys = new byte[PROBES][];
    missingKeys = new byte[PROBES][];
    for (int i = 0; i < PROBES; i++) {
      presentKeys[i] = BenchKeys.key(random.nextLong(RECORDS));
      missingKeys[i] = BenchKeys.missingKey(random.nextLong(RECORDS));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    table.close();
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }
}
