package dev.shale.storage.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.Vfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Seeded randomized round trips: replay a failure with -Dshale.seed=<the printed seed>. */
class TableRoundTripTest {
  @TempDir Path dir;

  @RepeatedTest(12)
  void everyRecordReadsBackExactlyAndAbsentKeysAreAbsent() throws IOException {
    long seed = Long.getLong("shale.seed", new Random().nextLong());
    System.out.println("TableRoundTripTest seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    Random random = new Random(seed);
    NavigableMap<byte[], Entry> records = randomRecords(random, 1 + random.nextInt(3000));
    int blockSizeBytes = 256 + random.nextInt(64 * 1024 - 256 + 1);
    int bitsPerKey = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(16);
    Path file = dir.resolve("000001.sst");

    TableMeta meta = TableWriter.write(Vfs.real(), file, 1, records.values().iterator(), blockSizeBytes, bitsPerKey);

    String context = "seed " + seed + ", block " + blockSizeBytes + " B, " + bitsPerKey + " bits/key";
    assertThat(meta.entryCount()).as(context).isEqualTo(records.size());
    assertThat(meta.smallestKey()).as(context).isEqualTo(records.firstKey());
    assertThat(meta.largestKey()).as(context).isEqualTo(records.lastKey());
    assertThat(meta.level()).isZero();
    assertThat(meta.fileSizeBytes()).isEqualTo(java.nio.file.Files.size(file));
    try (Table table = Table.open(Vfs.real(), file, 1)) {
      assertThat(table.entryCount()).isEqualTo(records.size());
      assertThat(table.minVersion()).isEqualTo(records.values().stream().mapToLong(Entry::version).min().orElseThrow());
      assertThat(table.maxVersion()).isEqualTo(records.values().stream().mapToLong(Entry::version).max().orElseThrow());
      for (Entry e : records.values()) assertThat(table.get(e.key().clone())).as(context).isEqualTo(e);
      for (int i = 0; i < 2000; i++) {
        byte[] absent = randomKey(random);
        assertThat(table.get(absent)).as(context + ", key " + Arrays.toString(absent)).isEqualTo(records.get(absent));
      }
      assertAbsentAroundEveryKey(table, records, context);
      assertThat(toList(table.iterator())).as(context).containsExactlyElementsOf(records.values());
    }
  }

  @Test
  void oneRecordTable() throws IOException {
    Path file = dir.resolve("000002.sst");
    Entry only = new Entry(new byte[] {7}, 42, new byte[0]);
    TableWriter.write(Vfs.real(), file, 2, List.of(only).iterator(), 4096, 10);
    try (Table table = Table.open(Vfs.real(), file, 2)) {
      assertThat(table.get(new byte[] {7})).isEqualTo(only);
      assertThat(table.get(new byte[] {6})).isNull();
      assertThat(table.get(new byte[] {7, 0})).isNull();
      assertThat(table.get(new byte[0])).isNull();
      assertThat(toList(table.iterator())).containsExactly(only);
    }
  }

  /** Keys just before and after each stored key (a byte less, a 0x00 appended, a prefix). */
  private static void assertAbsentAroundEveryKey(Table table, NavigableMap<byte[], Entry> records, String context) {
    for (byte[] key : records.keySet()) {
      for (byte[] near : neighbours(key)) {
        assertThat(table.get(near)).as(context + ", near key " + Arrays.toString(near)).isEqualTo(records.get(near));
      }
    }
  }

  private static List<byte[]> neighbours(byte[] key) {
    List<byte[]> near = new ArrayList<>();
    near.add(Arrays.copyOf(key, key.length + 1));
    if (key.length > 0) {
      near.add(Arrays.copyOf(key, key.length - 1));
      byte[] lower = key.clone();
      lower[lower.length - 1]--;
      near.add(lower);
      byte[] higher = key.clone();
      higher[higher.length - 1]++;
      near.add(higher);
    }
    return near;
  }

  static NavigableMap<byte[], Entry> randomRecords(Random random, int count) {
    TreeMap<byte[], Entry> records = new TreeMap<>(Keys.ORDER);
    while (records.size() < count) {
      byte[] key = randomKey(random);
      long version = random.nextLong(1L << 62);
      records.put(key, random.nextInt(8) == 0 ? Entry.tombstone(key, version) : new Entry(key, version, randomValue(random)));
    }
    return records;
  }

  /** Mostly short keys, some 1-byte and empty keys, some long; bytes lean on 0x00 and 0xFF. */
  static byte[] randomKey(Random random) {
    int length = switch (random.nextInt(10)) {
      case 0 -> random.nextInt(2);
      case 1 -> 200 + random.nextInt(2000);
      default -> 2 + random.nextInt(24);
    };
    byte[] key = new byte[length];
    for (int i = 0; i < length; i++) {
      int pick = random.nextInt(4);
      key[i] = pick == 0 ? 0 : pick == 1 ? (byte) 0xFF : (byte) random.nextInt(256);
    }
    return key;
  }

  static byte[] randomValue(Random random) {
    int length = switch (random.nextInt(10)) {
      case 0 -> 0;
      case 1 -> 1000 + random.nextInt(20_000);
      default -> random.nextInt(100);
    };
    byte[] value = new byte[length];
    random.nextBytes(value);
    return value;
  }

  static List<Entry> toList(Iterator<Entry> iterator) {
    List<Entry> list = new ArrayList<>();
    iterator.forEachRemaining(list::add);
    return list;
  }
}
