package dev.shale.storage.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemtableTest {
  private final Memtable memtable = new Memtable();

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
  void sizeCountsKeysValuesAndOverheadAndFollowsReplacement() {
    long overhead = Memtable.RECORD_OVERHEAD_BYTES;
    memtable.add(value("key", 1, "12345"));
    assertThat(memtable.sizeBytes()).isEqualTo(3 + 5 + overhead);
    memtable.add(value("key", 2, "1234567890"));
    assertThat(memtable.sizeBytes()).isEqualTo(3 + 10 + overhead);
    memtable.add(value("key", 1, "loses, so it costs nothing"));
    assertThat(memtable.sizeBytes()).isEqualTo(3 + 10 + overhead);
    memtable.add(Entry.tombstone(key("key"), 3));
    assertThat(memtable.sizeBytes()).isEqualTo(3 + overhead);
    memtable.add(value("other", 1, ""));
    assertThat(memtable.sizeBytes()).isEqualTo(3 + overhead + 5 + overhead);
    assertThat(memtable.entryCount()).isEqualTo(2);
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
