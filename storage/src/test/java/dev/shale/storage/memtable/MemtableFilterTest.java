package dev.shale.storage.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.table.Table;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The memtable's key filter never hides a key it holds (however full), and spares most searches
 * of absent keys when sized as the engine sizes it. Replay with -Dshale.seed=<seed>.
 */
class MemtableFilterTest {
  private static final long SEED = Long.getLong("shale.seed", new Random().nextLong());

  static {
    System.out.println("MemtableFilterTest seed " + SEED + " (replay with -Dshale.seed=" + SEED + ")");
  }

  @Test
  void everyAddedKeyIsMaybePresentEvenWhenTheFilterIsFarTooSmall() {
    MemtableFilter filter = new MemtableFilter(1); // one block for 50,000 keys: saturated
    Random random = new Random(SEED);
    byte[][] keys = new byte[50_000][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = randomKey(random);
      filter.add(Table.filterHash(keys[i]));
    }
    for (byte[] key : keys) assertThat(filter.mayContain(Table.filterHash(key))).as("seed " + SEED).isTrue();
  }

  @Test
  void aFilterSizedForTheMemtableRulesOutAlmostEveryAbsentKey() {
    // 100,000 records of 16-byte keys and 100-byte values fill 18 MB by the memtable's accounting.
    MemtableFilter filter = new MemtableFilter(16L << 20);
    for (int i = 0; i < 100_000; i++) filter.add(Table.filterHash(key("present", i)));
    int falsePositives = 0;
    int probes = 100_000;
    for (int i = 0; i < probes; i++) {
      if (filter.mayContain(Table.filterHash(key("absent", i)))) falsePositives++;
    }
    assertThat(falsePositives).as("false positives of %d absent keys", probes).isLessThan(probes / 50);
  }

  @Test
  void atTheFewestBitsPerKeyAMemtableCanHaveMostAbsentKeysAreStillRuledOut() {
    // Records of empty keys, tombstones all, take the fewest bytes: the fewest bits per key (5).
    assertThat(falsePositivePercent(Memtable.MIN_RECORD_BYTES)).as("empty keys").isLessThan(25);
    // The tombstone of a 16-byte key takes 64 bytes (its node of height 1 and its record): 8 bits.
    assertThat(falsePositivePercent(64)).as("16-byte keys").isLessThan(10);
  }

  // The false positives, in percent of 100,000 absent keys, of the filter of a 64 KiB memtable
  // filled with records of recordBytes each.
  private static int falsePositivePercent(long recordBytes) {
    long memtableBytes = 64 * 1024;
    MemtableFilter filter = new MemtableFilter(memtableBytes);
    int keys = (int) (memtableBytes / recordBytes);
    for (int i = 0; i < keys; i++) filter.add(Table.filterHash(key("present", i)));
    int falsePositives = 0;
    int probes = 100_000;
    for (int i = 0; i < probes; i++) {
      if (filter.mayContain(Table.filterHash(key("absent", i)))) falsePositives++;
    }
    return falsePositives * 100 / probes;
  }

  @Test
  void aMemtableFindsEveryKeyItHoldsAndNoneItDoesNot() {
    Memtable memtable = new Memtable(64 * 1024); // a small filter for many keys: false positives
    for (int i = 0; i < 20_000; i += 2) memtable.add(new Entry(key("k", i), i + 1, new byte[] {1}));
    for (int i = 0; i < 20_000; i++) {
      byte[] key = key("k", i);
      if (i % 2 == 0) {
        assertThat(memtable.get(key)).as("key %d", i).isNotNull();
        assertThat(memtable.get(key, Table.filterHash(key)).version()).isEqualTo(i + 1);
      } else {
        assertThat(memtable.get(key)).as("key %d", i).isNull();
      }
    }
  }

  @Test
  void aReaderFindsEveryKeyWhoseAddItHasSeenComplete() throws Exception {
    Memtable memtable = new Memtable(1 << 20);
    int keys = 100_000;
    AtomicInteger added = new AtomicInteger(); // keys [0, added) are in the memtable
    AtomicInteger misses = new AtomicInteger();
    Thread writer = Thread.ofPlatform().start(() -> {
      for (int i = 0; i < keys; i++) {
        memtable.add(new Entry(key("k", i), 1, new byte[0]));
        added.set(i + 1);
      }
    });
    Thread reader = Thread.ofPlatform().start(() -> {
      Random random = new Random(SEED);
      while (added.get() < keys) {
        int seen = added.get();
        if (seen == 0) continue;
        int i = seen - 1 - random.nextInt(Math.min(seen, 64)); // the newest keys: the racy ones
        if (memtable.get(key("k", i)) == null) misses.incrementAndGet();
      }
    });
    assertThat(writer.join(Duration.ofMinutes(1))).as("writer finished").isTrue();
    assertThat(reader.join(Duration.ofMinutes(1))).as("reader finished").isTrue();
    assertThat(misses.get()).as("reads that missed a key already added, seed " + SEED).isZero();
  }

  private static byte[] key(String prefix, int i) {
    return String.format("%s%016d", prefix, i).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] randomKey(Random random) {
    byte[] key = new byte[1 + random.nextInt(32)];
    random.nextBytes(key);
    return key;
  }
}
