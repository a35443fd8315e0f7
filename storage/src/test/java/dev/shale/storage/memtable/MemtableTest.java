package dev.shale.storage.memtable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MemtableTest {
  private final Memtable memtable = new Memtable();

  @AfterEach
  void free() {
    memtable.release();
  }

  @Test
  void emptyMemtable() {
    assertThat(memtable.isEmpty()).isTrue();
    assertThat(memtable.entryCount()).isZero();
    assertThat(memtable.sizeBytes()).isZero();
    assertThat(memtable.minVersion()).isEqualTo(Long.MAX_VALUE);
    assertThat(memtable.maxVersion()).isEqualTo(Long.MIN_VALUE);
    assertThat(memtable.get(key("a"))).isNull();
    assertThat(memtable.iterator().hasNext()).isFalse();
  }

  @Test
  void higherVersionWinsWhateverTheArrivalOrder() {
    memtable.add(value("k", 5, "new"));
    memtable.add(value("k", 3, "old"));
    assertThat(memtable.get(key("k"))).isEqualTo(value("k", 5, "new"));
    memtable.add(Entry.tombstone(key("k"), 7));
    assertThat(memtable.get(key("k"))).isEqualTo(Entry.tombstone(key("k"), 7));
    memtable.add(value("k", 6, "late"));
    assertThat(memtable.get(key("k"))).isEqualTo(Entry.tombstone(key("k"), 7));
    memtable.add(value("k", 8, "revived"));
    assertThat(memtable.get(key("k"))).isEqualTo(value("k", 8, "revived"));
    assertThat(memtable.entryCount()).isOne();
  }

  @Test
  void onEqualVersionsTombstoneThenGreaterValueWins() {
    memtable.add(value("k", 5, "b"));
    memtable.add(value("k", 5, "a"));
    assertThat(memtable.get(key("k"))).isEqualTo(value("k", 5, "b"));
    memtable.add(value("k", 5, "c"));
    assertThat(memtable.get(key("k"))).isEqualTo(value("k", 5, "c"));
    // Unsigned: 0xFF is greater than 'c' (0x63).
    memtable.add(new Entry(key("k"), 5, new byte[] {(byte) 0xFF}));
    assertThat(memtable.get(key("k"))).isEqualTo(new Entry(key("k"), 5, new byte[] {(byte) 0xFF}));
    memtable.add(Entry.tombstone(key("k"), 5));
    assertThat(memtable.get(key("k"))).isEqualTo(Entry.tombstone(key("k"), 5));
    memtable.add(value("k", 5, "zzz"));
    assertThat(memtable.get(key("k"))).isEqualTo(Entry.tombstone(key("k"), 5));
  }

  @Test
  void iteratesInUnsignedKeyOrderWithShorterKeysFirst() {
    byte[][] keys = {{(byte) 0xFF}, {0x01, 0x00}, {}, {0x01}, {(byte) 0x80}, {0x00}, {0x7F, (byte) 0xFF}};
    for (byte[] k : keys) memtable.add(new Entry(k, 1, k));
    List<byte[]> seen = new ArrayList<>();
    memtable.iterator().forEachRemaining(e -> seen.add(e.key()));
    assertThat(seen).containsExactly(
        new byte[] {}, new byte[] {0x00}, new byte[] {0x01}, new byte[] {0x01, 0x00},
        new byte[] {0x7F, (byte) 0xFF}, new byte[] {(byte) 0x80}, new byte[] {(byte) 0xFF});
  }

  @Test
  void sizeCountsEveryRecordAddedThatWonAndNothingForOneThatLost() {
    memtable.add(value("key", 1, "12345"));
    long first = memtable.sizeBytes();
    assertThat(first).isGreaterThanOrEqualTo(Memtable.MIN_RECORD_BYTES + 3 + 5);

    memtable.add(value("key", 2, "1234567890"));
    long replaced = memtable.sizeBytes();
    assertThat(replaced - first).as("the new record; the displaced one stays until the memtable goes")
        .isBetween(10L, 10L + Memtable.MIN_RECORD_BYTES);

    memtable.add(value("key", 1, "loses, so it costs nothing"));
    assertThat(memtable.sizeBytes()).isEqualTo(replaced);

    memtable.add(value("other", 1, ""));
    assertThat(memtable.sizeBytes() - replaced).as("a node and a record")
        .isGreaterThanOrEqualTo(Memtable.MIN_RECORD_BYTES + 5);
    assertThat(memtable.entryCount()).isEqualTo(2);
  }

  @Test
  void aValueTooLargeForAChunkIsStoredWhole() {
    byte[] big = new byte[16 << 20];
    for (int i = 0; i < big.length; i += 4096) big[i] = (byte) (i >>> 12);
    big[big.length - 1] = 42;
    memtable.add(value("before", 1, "small"));
    memtable.add(new Entry(key("big"), 2, big));
    memtable.add(value("c-after", 3, "small too"));
    assertThat(memtable.get(key("big"))).isEqualTo(new Entry(key("big"), 2, big));
    assertThat(keys(memtable.iterator())).containsExactly("before", "big", "c-after");
    assertThat(memtable.sizeBytes()).isGreaterThan(big.length);
  }

  @Test
  void manyKeysInManyChunksReadBackInOrder() {
    java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 50_000; i++) {
      String k = "k" + random.nextInt(20_000);
      String v = "v" + i + "-".repeat(random.nextInt(200));
      memtable.add(value(k, i, v));
      model.put(k, v);
    }
    assertThat(memtable.entryCount()).isEqualTo(model.size());
    assertThat(memtable.sizeBytes()).as("spans chunks").isGreaterThan(MemtableArena.MAX_CHUNK_BYTES);
    List<String> seen = new ArrayList<>();
    memtable.iterator().forEachRemaining(e -> {
      seen.add(new String(e.key(), StandardCharsets.UTF_8));
      assertThat(new String(e.value(), StandardCharsets.UTF_8)).isEqualTo(model.get(new String(e.key(), StandardCharsets.UTF_8)));
    });
    assertThat(seen).containsExactlyElementsOf(model.keySet());
    for (String k : model.keySet()) assertThat(new String(memtable.get(key(k)).value(), StandardCharsets.UTF_8)).isEqualTo(model.get(k));
    assertThat(memtable.get(key("k-absent"))).isNull();
  }

  @Test
  void ascendingRunsRandomKeysAndRepeatsMatchAModel() {
    // Ascending runs take the splice-reuse path of an insert, random keys and repeats the search.
    long seed = Long.getLong("shale.seed", new java.util.Random().nextLong());
    System.out.println("MemtableTest seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    java.util.Random random = new java.util.Random(seed);
    java.util.TreeMap<String, Entry> model = new java.util.TreeMap<>();
    long version = 0;
    for (int run = 0; run < 300; run++) {
      int start = random.nextInt(100_000);
      int length = 1 + random.nextInt(200);
      int kind = random.nextInt(3);
      for (int i = 0; i < length; i++) {
        int k = switch (kind) {
          case 0 -> start + i; // ascending
          case 1 -> start + length - i; // descending
          default -> random.nextInt(100_000);
        };
        String key = String.format("k%06d", k);
        long v = random.nextInt(10) == 0 ? version - random.nextInt(5) : ++version; // some older ones
        Entry e = random.nextInt(8) == 0 ? Entry.tombstone(key(key), v) : value(key, v, "v" + v);
        memtable.add(e);
        model.merge(key, e, Entry::newer);
      }
    }
    List<Entry> held = new ArrayList<>();
    memtable.iterator().forEachRemaining(held::add);
    assertThat(held).as("seed " + seed).containsExactlyElementsOf(model.values());
    assertThat(memtable.entryCount()).isEqualTo(model.size());
    for (int probe = 0; probe < 2_000; probe++) {
      String key = String.format("k%06d", random.nextInt(100_001));
      assertThat(memtable.get(key(key))).as("seed %d, %s", seed, key).isEqualTo(model.get(key));
    }
  }

  @Test
  void aFreedMemtableRefusesReadsAndRetains() {
    Memtable other = new Memtable(64 << 10);
    other.add(value("a", 1, "x"));
    other.retain();
    other.release();
    assertThat(other.get(key("a"))).as("one reference left").isNotNull();
    other.release();
    assertThatThrownBy(() -> other.get(key("a"))).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(other::retain).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(other::release).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void versionBoundsCoverEveryAddedRecord() {
    memtable.add(value("a", 50, "x"));
    memtable.add(value("b", 20, "x"));
    memtable.add(Entry.tombstone(key("a"), 90));
    assertThat(memtable.minVersion()).isEqualTo(20);
    assertThat(memtable.maxVersion()).isEqualTo(90);
  }

  @Test
  void rangeIteratorsHonourInclusiveStartExclusiveEndAndOpenBounds() {
    for (String k : List.of("a", "b", "bb", "c", "d")) memtable.add(value(k, 1, k));
    assertThat(keys(memtable.iterator(key("b"), key("c")))).containsExactly("b", "bb");
    assertThat(keys(memtable.iterator(key("ba"), key("d")))).containsExactly("bb", "c");
    assertThat(keys(memtable.iterator(null, key("bb")))).containsExactly("a", "b");
    assertThat(keys(memtable.iterator(key("c"), null))).containsExactly("c", "d");
    assertThat(keys(memtable.iterator(null, null))).containsExactly("a", "b", "bb", "c", "d");
    assertThat(keys(memtable.iterator(key("e"), null))).isEmpty();
    assertThat(keys(memtable.iterator(key("c"), key("c")))).isEmpty();
    assertThat(keys(memtable.iterator(key("d"), key("a")))).isEmpty();
  }

  private static List<String> keys(Iterator<Entry> iterator) {
    List<String> keys = new ArrayList<>();
    iterator.forEachRemaining(e -> keys.add(new String(e.key(), StandardCharsets.UTF_8)));
    return keys;
  }

  static byte[] key(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static Entry value(String key, long version, String value) {
    return new Entry(key(key), version, value.getBytes(StandardCharsets.UTF_8));
  }
}
