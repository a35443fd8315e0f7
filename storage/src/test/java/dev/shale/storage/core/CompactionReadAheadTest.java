package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Compression;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Env;
import dev.shale.storage.ReadRecordingVfs;
import dev.shale.storage.ReadRecordingVfs.Read;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How many read-ahead windows a compaction holds at once: one per level below 0 (and one per
 * level-0 table), not one per table. Each table iterator keeps a 2 MiB window until it is closed;
 * a full compaction of a node's 565 tables, each its own source, held 1.1 GiB of them and the
 * node was killed by its 2 GiB memory cgroup (docs/perf/larger-than-memory.md).
 *
 * <p>A window is held from a table's first read to its last, so the reads the compaction makes
 * show it: the tables whose first read has come and last read not yet are the windows open.
 */
class CompactionReadAheadTest {
  private static final int KEYS = 24_000;
  private static final int VALUE_BYTES = 1000; // incompressible: ~24 MB, six tables of 4 MiB

  @TempDir Path dir;

  @Test
  void aFullCompactionReadsTheTablesOfALevelOneAfterTheOther() {
    ReadRecordingVfs vfs = new ReadRecordingVfs();
    EngineOptions options = EngineOptions.defaults()
        .withEnv(Env.real().withVfs(vfs))
        .withCompression(Compression.NONE)
        .withMemtableSizeBytes(4 << 20)
        .withLevelSizes(16L << 20, 4L << 20);
    Random random = new Random(30);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), value(random));
      engine.compact();
      int bottomTables = engine.stats().tablesPerLevel().getLast();
      assertThat(bottomTables).as("tables at the bottom level after the first full compaction").isGreaterThanOrEqualTo(5);
      // A few keys across the range again: one level-0 table beside the bottom level's.
      for (int i = 0; i < KEYS; i += 100) engine.put(key(i), value(random));
      Set<Path> before = tables();
      vfs.clear();
      engine.compact();

      List<Read> inputReads = vfs.reads().stream().filter(r -> before.contains(r.file())).toList();
      assertThat(inputReads.stream().map(Read::file).distinct().count())
          .as("input tables read (the bottom level's and the flushed one)").isGreaterThanOrEqualTo(bottomTables);
      assertThat(mostWindowsAtOnce(inputReads))
          .as("windows open at once: one for the bottom level, one for the level-0 table")
          .isLessThanOrEqualTo(2);
    }
  }

  // The largest number of files whose first read has happened and whose last read has not.
  private static int mostWindowsAtOnce(List<Read> reads) {
    Map<Path, Integer> last = new HashMap<>();
    for (int i = 0; i < reads.size(); i++) last.put(reads.get(i).file(), i);
    Set<Path> open = new HashSet<>();
    int most = 0;
    for (int i = 0; i < reads.size(); i++) {
      Path file = reads.get(i).file();
      open.add(file);
      most = Math.max(most, open.size());
      if (last.get(file) == i) open.remove(file);
    }
    return most;
  }

  private Set<Path> tables() {
    return EngineTesting.fileNames(dir).stream().filter(n -> n.endsWith(".sst")).map(dir::resolve)
        .collect(Collectors.toSet());
  }

  private static byte[] key(int i) {
    return bytes("key-%06d".formatted(i));
  }

  private static byte[] value(Random random) {
    byte[] v = new byte[VALUE_BYTES];
    random.nextBytes(v);
    return v;
  }
}
