package dev.shale.storage.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The writer (one at a time, as the engine's write leader) adds to a few hot keys, interleaving
 * several streams with versions from a narrow range (so ties are common and arrive out of order),
 * while readers check that no key's record ever goes backwards. Replay with -Dshale.seed=<seed>.
 */
class MemtableConcurrencyTest {
  private static final int STREAMS = 4;
  private static final int READERS = 3;
  private static final int WRITES_PER_STREAM = 40_000;
  private static final int KEYS = 64;

  @Test
  void theWriterKeepsTheWinnerAndConcurrentReadersNeverSeeAKeyGoBackwards() throws Exception {
    long seed = Long.getLong("shale.seed", new Random().nextLong());
    System.out.println("MemtableConcurrencyTest seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    List<List<Entry>> writes = new ArrayList<>();
    for (int w = 0; w < STREAMS; w++) writes.add(randomWrites(new Random(seed + w)));
    Memtable memtable = new Memtable();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    AtomicBoolean writersDone = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);

    Thread writer = Thread.ofPlatform().start(() -> write(memtable, writes, start));
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < READERS; r++) {
      readers.add(Thread.ofPlatform().start(() -> read(memtable, start, writersDone, violations)));
    }
    start.countDown();
    assertThat(writer.join(java.time.Duration.ofMinutes(1))).as("writer finished").isTrue();
    writersDone.set(true);
    for (Thread t : readers) assertThat(t.join(java.time.Duration.ofMinutes(1))).as("reader finished").isTrue();

    assertThat(violations).as("seed " + seed).isEmpty();
    NavigableMap<byte[], Entry> expected = winners(writes);
    List<Entry> held = new ArrayList<>();
    memtable.iterator().forEachRemaining(held::add);
    assertThat(held).as("seed " + seed).containsExactlyElementsOf(expected.values());
    assertThat(memtable.entryCount()).isEqualTo(expected.size());
    assertThat(memtable.sizeBytes()).as("seed " + seed).isGreaterThanOrEqualTo(expected.values().stream()
        .mapToLong(e -> Memtable.MIN_RECORD_BYTES + e.key().length + (e.isTombstone() ? 0 : e.value().length))
        .sum());
    assertThat(memtable.minVersion()).isEqualTo(writes.stream().flatMap(List::stream).mapToLong(Entry::version).min().orElseThrow());
    assertThat(memtable.maxVersion()).isEqualTo(writes.stream().flatMap(List::stream).mapToLong(Entry::version).max().orElseThrow());
    memtable.release();
  }

  @Test
  void readersIteratingWhileTheWriterInsertsSeeKeysInOrderAndNoneAddedBeforeThey() throws Exception {
    long seed = Long.getLong("shale.seed", new Random().nextLong());
    System.out.println("MemtableConcurrencyTest seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    int keys = 100_000;
    List<byte[]> order = new ArrayList<>();
    for (int i = 0; i < keys; i++) order.add(("key-" + i).getBytes(StandardCharsets.UTF_8));
    java.util.Collections.shuffle(order, new Random(seed));
    Memtable memtable = new Memtable(1 << 20);
    java.util.concurrent.atomic.AtomicInteger added = new java.util.concurrent.atomic.AtomicInteger();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    Thread writer = Thread.ofPlatform().start(() -> {
      for (int i = 0; i < keys; i++) {
        memtable.add(new Entry(order.get(i), i, new byte[i % 50]));
        added.set(i + 1);
      }
    });
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < READERS; r++) {
      readers.add(Thread.ofPlatform().start(() -> {
        while (added.get() < keys) {
          int before = added.get(); // every one of these keys was in the list when the walk began
          int seen = 0;
          byte[] previous = null;
          for (var it = memtable.iterator(); it.hasNext(); seen++) {
            byte[] key = it.next().key();
            if (previous != null && Keys.compare(previous, key) >= 0) {
              violations.add(new String(previous, StandardCharsets.UTF_8) + " then " + new String(key, StandardCharsets.UTF_8));
            }
            previous = key;
          }
          if (seen < before) violations.add("a walk saw " + seen + " keys of at least " + before);
        }
      }));
    }
    assertThat(writer.join(java.time.Duration.ofMinutes(1))).as("writer finished").isTrue();
    for (Thread t : readers) assertThat(t.join(java.time.Duration.ofMinutes(1))).as("reader finished").isTrue();
    assertThat(violations).as("seed " + seed).isEmpty();
    assertThat(memtable.entryCount()).isEqualTo(keys);
    memtable.release();
  }

  // Round robin over the streams: records of a key arrive with versions out of order.
  private static void write(Memtable memtable, List<List<Entry>> streams, CountDownLatch start) {
    awaitStart(start);
    for (int i = 0; i < WRITES_PER_STREAM; i++) {
      for (List<Entry> ops : streams) memtable.add(ops.get(i));
    }
  }

  private static void read(Memtable memtable, CountDownLatch start, AtomicBoolean writersDone, ConcurrentLinkedQueue<String> violations) {
    awaitStart(start);
    Map<Integer, Entry> lastSeen = new HashMap<>();
    Random random = new Random();
    while (!writersDone.get()) {
      int k = random.nextInt(KEYS);
      Entry current = memtable.get(key(k));
      Entry previous = lastSeen.get(k);
      if (previous != null && (current == null || !Entry.newer(previous, current).equals(current))) {
        violations.add("key " + k + " went from " + previous + " back to " + current);
      }
      if (current != null) lastSeen.put(k, current);
    }
  }

  private static List<Entry> randomWrites(Random random) {
    List<Entry> ops = new ArrayList<>(WRITES_PER_STREAM);
    for (int i = 0; i < WRITES_PER_STREAM; i++) {
      byte[] key = key(random.nextInt(KEYS));
      long version = (long) i / 100 + random.nextInt(3); // climbing, with frequent ties across writers
      if (random.nextInt(10) == 0) {
        ops.add(Entry.tombstone(key, version));
      } else {
        byte[] value = new byte[random.nextInt(40)];
        random.nextBytes(value);
        ops.add(new Entry(key, version, value));
      }
    }
    return ops;
  }

  private static NavigableMap<byte[], Entry> winners(List<List<Entry>> writes) {
    TreeMap<byte[], Entry> winners = new TreeMap<>(Keys.ORDER);
    for (List<Entry> ops : writes) for (Entry e : ops) winners.merge(e.key(), e, Entry::newer);
    return winners;
  }

  private static byte[] key(int k) {
    return new byte[] {'k', (byte) k};
  }

  private static void awaitStart(CountDownLatch start) {
    try {
      if (!start.await(1, TimeUnit.MINUTES)) throw new IllegalStateException("start not signalled");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
