package dev.shale.storage.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Entry;
import dev.shale.storage.Keys;
import dev.shale.storage.table.FoundRecord;
import dev.shale.storage.table.PeekableRecords;
import dev.shale.testkit.TestSeed;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * MergingIterator against a TreeMap model that keeps, per key, the winner by Entry.newer. Replay a
 * failure with {@code -Dshale.seed=<seed printed by the run>}.
 */
class MergingIteratorTest {
  private static final int ROUNDS = 300;

  @Test
  void randomOverlappingSourcesMergeLikeTheModel() {
    long seed = TestSeed.forTest("randomOverlappingSourcesMergeLikeTheModel");
    Random random = new Random(seed);
    for (int round = 0; round < ROUNDS; round++) {
      int sourceCount = random.nextInt(8);
      int keySpace = 1 + random.nextInt(200);
      TreeMap<byte[], Entry> model = new TreeMap<>(Keys.ORDER);
      List<List<Entry>> sources = new ArrayList<>();
      for (int s = 0; s < sourceCount; s++) {
        List<Entry> source = randomSource(random, keySpace);
        for (Entry e : source) model.merge(e.key(), e, Entry::newer);
        sources.add(source);
      }
      List<Entry> merged = drain(MergingIterator.of(iterators(sources)));
      assertThat(merged)
          .as("seed %d, round %d, %d sources", seed, round, sourceCount)
          .containsExactlyElementsOf(model.values());
    }
  }

  @Test
  void tiesOnVersionAreResolvedByEntryNewerWhateverTheSourceOrder() {
    Entry older = new Entry(key(1), 5, value("a"));
    Entry valueTie = new Entry(key(1), 7, value("b"));
    Entry greaterValueTie = new Entry(key(1), 7, value("c"));
    Entry tombstoneTie = Entry.tombstone(key(1), 7);
    List<List<Entry>> sources =
        List.of(List.of(older), List.of(greaterValueTie), List.of(tombstoneTie), List.of(valueTie));
    for (List<List<Entry>> order : permutations(sources)) {
      assertThat(drain(MergingIterator.of(iterators(order)))).containsExactly(tombstoneTie);
    }
    List<List<Entry>> valuesOnly = List.of(List.of(valueTie), List.of(greaterValueTie), List.of(older));
    for (List<List<Entry>> order : permutations(valuesOnly)) {
      assertThat(drain(MergingIterator.of(iterators(order)))).containsExactly(greaterValueTie);
    }
  }

  /**
   * Sources that can be peeked at (a table's) have only their winners copied out: a merge of k
   * tables held k values on the heap, and with 16 MiB values a compaction ran a 128 MiB heap out
   * of memory.
   */
  @Test
  void peekableSourcesHaveOnlyTheirWinnersCopiedOut() {
    long seed = TestSeed.forTest("peekableSourcesHaveOnlyTheirWinnersCopiedOut");
    Random random = new Random(seed);
    for (int round = 0; round < ROUNDS; round++) {
      int sourceCount = 2 + random.nextInt(7);
      int keySpace = 1 + random.nextInt(100);
      TreeMap<byte[], Entry> model = new TreeMap<>(Keys.ORDER);
      List<Iterator<Entry>> iterators = new ArrayList<>();
      List<Peekable> peekables = new ArrayList<>();
      for (int s = 0; s < sourceCount; s++) {
        List<Entry> source = randomSource(random, keySpace);
        for (Entry e : source) model.merge(e.key(), e, Entry::newer);
        if (random.nextInt(4) == 0) {
          iterators.add(source.iterator());
        } else {
          Peekable peekable = new Peekable(source);
          peekables.add(peekable);
          iterators.add(peekable);
        }
      }
      List<Entry> merged = drain(MergingIterator.of(iterators));
      String context = "seed " + seed + ", round " + round + ", " + sourceCount + " sources";
      assertThat(merged).as(context).containsExactlyElementsOf(model.values());
      int copied = 0;
      for (Peekable p : peekables) {
        assertThat(p.copied + p.skipped).as(context + ": every record taken or skipped once").isEqualTo(p.records.size());
        copied += p.copied;
      }
      assertThat(copied).as(context + ": records copied out of peekable sources").isLessThanOrEqualTo(merged.size());
    }
  }

  @Test
  void tiesOnVersionAmongPeekableSourcesAreResolvedByEntryNewer() {
    Entry older = new Entry(key(1), 5, value("a"));
    Entry valueTie = new Entry(key(1), 7, value("b"));
    Entry greaterValueTie = new Entry(key(1), 7, value("c"));
    Entry tombstoneTie = Entry.tombstone(key(1), 7);
    List<List<Entry>> sources =
        List.of(List.of(older), List.of(greaterValueTie), List.of(tombstoneTie), List.of(valueTie));
    for (List<List<Entry>> order : permutations(sources)) {
      List<Iterator<Entry>> iterators = new ArrayList<>();
      for (int i = 0; i < order.size(); i++) iterators.add(i % 2 == 0 ? new Peekable(order.get(i)) : order.get(i).iterator());
      assertThat(drain(MergingIterator.of(iterators))).containsExactly(tombstoneTie);
    }
  }

  @Test
  void noSourcesAndEmptySourcesGiveNothing() {
    assertThat(MergingIterator.of(List.of()).hasNext()).isFalse();
    Iterator<Entry> empties = MergingIterator.of(iterators(List.of(List.of(), List.of(), List.of())));
    assertThat(empties.hasNext()).isFalse();
    assertThatThrownBy(empties::next).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void aSingleSourceComesOutUnchanged() {
    List<Entry> source = List.of(new Entry(key(1), 3, value("x")), Entry.tombstone(key(2), 4));
    assertThat(drain(MergingIterator.of(iterators(List.of(source))))).containsExactlyElementsOf(source);
  }

  @Test
  void emptySourcesAmongOthersAreSkipped() {
    List<Entry> a = List.of(new Entry(key(1), 3, value("x")), new Entry(key(4), 3, value("y")));
    List<Entry> b = List.of(new Entry(key(2), 3, value("z")));
    List<List<Entry>> sources = List.of(List.of(), a, List.of(), b, List.of());
    assertThat(drain(MergingIterator.of(iterators(sources))))
        .containsExactly(a.get(0), b.get(0), a.get(1));
  }

  @Test
  void buildingTheMergeReadsNoSource() {
    List<Iterator<Entry>> sources = List.of(new Refusing(), new Refusing());
    Iterator<Entry> merge = MergingIterator.of(sources);
    assertThat(merge).isNotNull();
    assertThatThrownBy(merge::hasNext).isInstanceOf(AssertionError.class).hasMessage("read");
  }

  @Test
  void aSourceOutOfOrderIsRefused() {
    List<Entry> bad = List.of(new Entry(key(2), 1, value("a")), new Entry(key(1), 1, value("b")));
    List<Entry> good = List.of(new Entry(key(0), 1, value("c")));
    Iterator<Entry> merge = MergingIterator.of(iterators(List.of(good, bad)));
    assertThat(merge.next()).isEqualTo(good.get(0));
    assertThatThrownBy(merge::next)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("merge source 1");
  }

  /** Strictly increasing keys drawn from [0, keySpace), random versions, some tombstones. */
  private static List<Entry> randomSource(Random random, int keySpace) {
    List<Entry> source = new ArrayList<>();
    double density = random.nextDouble();
    for (int k = 0; k < keySpace; k++) {
      if (random.nextDouble() >= density) continue;
      long version = random.nextInt(6); // few versions: ties across sources are common
      if (random.nextInt(4) == 0) source.add(Entry.tombstone(key(k), version));
      else source.add(new Entry(key(k), version, value("v" + random.nextInt(3))));
    }
    return source;
  }

  private static List<Iterator<Entry>> iterators(List<List<Entry>> sources) {
    List<Iterator<Entry>> iterators = new ArrayList<>();
    for (List<Entry> source : sources) iterators.add(source.iterator());
    return iterators;
  }

  private static List<Entry> drain(Iterator<Entry> iterator) {
    List<Entry> out = new ArrayList<>();
    while (iterator.hasNext()) out.add(iterator.next());
    return out;
  }

  private static <T> List<List<T>> permutations(List<T> items) {
    if (items.isEmpty()) return List.of(List.of());
    List<List<T>> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      List<T> rest = new ArrayList<>(items);
      T first = rest.remove(i);
      for (List<T> tail : permutations(rest)) {
        List<T> permutation = new ArrayList<>();
        permutation.add(first);
        permutation.addAll(tail);
        out.add(permutation);
      }
    }
    return out;
  }

  /** Keys whose byte order is their numeric order, with a variable length to exercise prefixes. */
  private static byte[] key(int k) {
    String text = String.format(k % 3 == 0 ? "k%04d" : "k%04d/suffix", k);
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A source that can be peeked at, counting the records copied out (next) and skipped. */
  private static final class Peekable implements PeekableRecords {
    final List<Entry> records;
    private int at;
    int copied;
    int skipped;

    Peekable(List<Entry> records) {
      this.records = records;
    }

    @Override
    public boolean hasNext() {
      return at < records.size();
    }

    @Override
    public Entry next() {
      Entry e = current();
      copied++;
      at++;
      return e;
    }

    @Override
    public byte[] peekKey() {
      return current().key();
    }

    @Override
    public FoundRecord peekRecord() {
      Entry e = current();
      byte[] value = e.value();
      return new FoundRecord(e.version(), value == null ? null : MemorySegment.ofArray(value), e.expiresAtMillis());
    }

    @Override
    public void skip() {
      current();
      skipped++;
      at++;
    }

    @Override
    public void close() {}

    private Entry current() {
      if (!hasNext()) throw new NoSuchElementException();
      return records.get(at);
    }
  }

  /** A source that fails the test if it is read at all. */
  private static final class Refusing implements Iterator<Entry> {
    @Override
    public boolean hasNext() {
      throw new AssertionError("read");
    }

    @Override
    public Entry next() {
      throw new AssertionError("read");
    }
  }
}
