package dev.shale.storage.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Writers race on a few hot keys with versions from a narrow range (so ties are common) while
 * readers check that no key's record ever goes backwards. Replay with -Dshale.seed=<seed>.
 */
class MemtableConcurrencyTest {
  private static final int WRITERS = 4;
  private static final int READERS = 3;
  private static final int WRITES_PER_WRITER = 40_000;
  private static final int KEYS = 64;

  @Test
  void concurrentWritersKeepTheWinnerAndReadersNeverSeeAKeyGoBackwards() throws Exception {
    long seed = Long.getLong("shale.seed", new Random().nextLong());
    System.out.println("MemtableConcurrencyTest seed " + seed + " (replay with -Dshale.seed=" + seed + ")");
    List<List<Entry>> writes = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) writes.add(randomWrites(new Random(seed + w)));
    Memtable memtable = new Memtable();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    AtomicBoolean writersDone = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> writers = new ArrayList<>();
    for (List<Entry> ops : writes) writers.add(Thread.ofPlatform().start(() -> write(memtable, ops, start)));
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < READERS; r++) {
      readers.add(Thread.ofPlatform().start(() -> read(memtable, start, writersDone, violations)));
    }
    start.countDown();
    for (Thread t : writers) assertThat(t.join(java.time.Duration.ofMinutes(1))).as("writer finished").isTrue();
    writersDone.set(true);
    for (Thread t : readers) assertThat(t.join(java.time.Duration.ofMinutes(1))).as("reader finished").isTrue();

    assertThat(violations).as("seed " + seed).isEmpty();
    TreeMap<byte[], Entry> expected = winners(writes);
    List<Entry> held = new ArrayList<>();
    memtable.iterator().forEachRemaining(held::add);
    assertThat(held).as("seed " + seed).containsExactlyElementsOf(expected.values());
    assertThat(memtable.entryCount()).isEqualTo(expected.size());
    assertThat(memtable.sizeBytes()).as("seed " + seed)
        .isEqualTo(expected.values().stream().mapToLong(Memtable::recordSizeBytes).sum());
    assertThat(memtable.minVersion()).isEqualTo(writes.stream().flatMap(List::stream).mapToLong(Entry::version).min().orElseThrow());
    assertThat(memtable.maxVersion()).isEqualTo(writes.stream().flatMap(List::stream).mapToLong(Entry::version).max().orElseThrow());
  }

  private static void write(Memtable memtable, List<Entry> ops, CountDownLatch start) {
    awaitStart(start);
    for (Entry e : ops) memtable.add(e);
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
    List<Entry> ops = new ArrayList<>(WRITES_PER_WRITER);
    for (int i = 0; i < WRITES_PER_WRITER; i++) {
      byte[] key = key(random.nextInt(KEYS));
      long version = i / 100 + random.nextInt(3); // climbing, with frequent ties across writers
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

  private static TreeMap<byte[], Entry> winners(List<List<Entry>> writes) {
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
