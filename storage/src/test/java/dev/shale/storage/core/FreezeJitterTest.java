package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memtables freeze at sizes drawn anew for each one below the configured size, so replicas that
 * take the same writes do not flush in step: the same writes make level-0 tables of different
 * sizes, none beyond the bound.
 */
class FreezeJitterTest {
  @TempDir Path dir;

  @Test
  @Timeout(120)
  void theSameWritesFreezeAtVaryingSizesWithinTheBound() throws IOException {
    int memtableBytes = 256 << 10;
    EngineOptions options = EngineTesting.smallOptions()
        .withMemtableSizeBytes(memtableBytes)
        .withL0Triggers(20, 30, 40); // no compaction merges the tables compared
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      byte[] value = new byte[100];
      for (int i = 0; engine.stats().flushes() < 6; i++) {
        assertThat(i).as("writes before six flushes").isLessThan(1_000_000);
        engine.put(EngineTesting.bytes(String.format("k%08d", i)), value);
      }
      List<Long> tableSizes = new ArrayList<>();
      for (String name : EngineTesting.fileNames(dir)) {
        if (name.endsWith(".sst")) tableSizes.add(Files.size(dir.resolve(name)));
      }
      assertThat(tableSizes).hasSizeGreaterThanOrEqualTo(6);
      assertThat(tableSizes.stream().distinct().count()).as("distinct sizes of %s", tableSizes).isGreaterThan(1);
      // A table holds less than its memtable did (no skip-list overhead), so the bound holds for it too.
      assertThat(tableSizes).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(memtableBytes));
    }
  }
}
