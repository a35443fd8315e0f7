package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Values far larger than a block and than the writer's buffer. */
class LargeValueTest {
  @TempDir Path dir;

  @Test
  void aSixteenMebibyteValueRoundTrips() throws IOException {
    byte[] value = randomBytes(16 << 20, 1);
    Entry big = new Entry(bytes("big"), 5, value);
    Path file = dir.resolve("000001.sst");
    TableMeta meta = TableWriter.write(Vfs.real(), file, 1, List.of(big).iterator(), 4096, 10);
    assertThat(meta.fileSizeBytes()).isGreaterThan(16L << 20);
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      assertThat(table.get(bytes("big"))).isEqualTo(big);
      assertThat(TableRoundTripTest.toList(table.iterator())).containsExactly(big);
    }
  }

  @Test
  void hugeAndTinyValuesMixed() throws IOException {
    List<Entry> entries = new ArrayList<>();
    int[] sizes = {0, 1, 3 << 20, 7, 300_000, 0, 255 * 1024, 256 * 1024, 256 * 1024 + 1, 12, 5 << 20, 1};
    for (int i = 0; i < sizes.length; i++) {
      byte[] key = bytes(String.format("key-%03d", i));
      entries.add(i % 5 == 4 ? Entry.tombstone(key, i) : new Entry(key, i, randomBytes(sizes[i], i)));
    }
    Path file = dir.resolve("000002.sst");
    TableWriter.write(Vfs.real(), file, 2, entries.iterator(), 1024, 10);
    try (Table table = Table.open(Vfs.real(), file, 2)) {
      for (Entry e : entries) assertThat(table.get(e.key())).isEqualTo(e);
      assertThat(TableRoundTripTest.toList(table.iterator())).containsExactlyElementsOf(entries);
    }
  }

  private static byte[] randomBytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
