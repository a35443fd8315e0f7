package dev.shale.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.cluster.NodeAddress;
import dev.shale.cluster.Placement;
import dev.shale.cluster.Topology;
import dev.shale.storage.Entry;
import dev.shale.testkit.TestSeed;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Repairs of in-memory replicas against an oracle: the newest record of every key. */
class PairRepairTest {
  private static final List<NodeAddress> NODES =
      List.of(new NodeAddress("127.0.0.1", 8080), new NodeAddress("127.0.0.1", 8081), new NodeAddress("127.0.0.1", 8082));
  private static final Placement PLACEMENT = new Placement(new Topology(NODES, NODES.getFirst()));

  @Test
  void anEmptiedReplicaGetsEveryRecordBackTombstonesIncluded() {
    MapSide healthy = new MapSide(NODES.get(0));
    MapSide emptied = new MapSide(NODES.get(1));
    for (int i = 0; i < 500; i++) healthy.put(i % 5 == 0 ? Entry.tombstone(RepairTreeTest.key(i), 9) : value(i, 8));
    RepairReport report = new PairRepair(healthy, emptied, range(3), 8, 3, RepairThrottle.unlimited()).run();
    assertThat(emptied.records.values()).containsExactlyElementsOf(healthy.records.values());
    assertThat(report.recordsExchanged()).isEqualTo(500);
  }

  @Test
  void replicasThatHoldOneWriteWithDifferentExpiriesConvergeOnTheLaterOne() {
    MapSide one = new MapSide(NODES.get(0));
    MapSide other = new MapSide(NODES.get(1));
    byte[] key = RepairTreeTest.key(1);
    Entry early = new Entry(key, 10, new byte[] {1}, 1_000);
    Entry late = new Entry(key, 10, new byte[] {1}, 2_000);
    one.put(early);
    other.put(late);
    one.put(new Entry(RepairTreeTest.key(2), 10, new byte[] {2}, 3_000));
    other.put(new Entry(RepairTreeTest.key(2), 10, new byte[] {2}, 3_000));
    RepairReport report = new PairRepair(one, other, range(3), 8, 3, RepairThrottle.unlimited()).run();
    assertThat(one.records.get(key)).isEqualTo(late);
    assertThat(other.records.get(key)).isEqualTo(late);
    assertThat(report.recordsExchanged()).as("only the record whose expiry differed").isEqualTo(1);
  }

  @Test
  void aNewerTombstoneWinsOverAnOlderValueAndAnOlderTombstoneLoses() {
    MapSide one = new MapSide(NODES.get(0));
    MapSide other = new MapSide(NODES.get(1));
    one.put(Entry.tombstone(RepairTreeTest.key(1), 10));
    other.put(value(1, 9));
    one.put(Entry.tombstone(RepairTreeTest.key(2), 10));
    other.put(value(2, 11));
    new PairRepair(one, other, range(3), 8, 3, RepairThrottle.unlimited()).run();
    assertThat(other.records.get(RepairTreeTest.key(1))).isEqualTo(Entry.tombstone(RepairTreeTest.key(1), 10));
    assertThat(one.records.get(RepairTreeTest.key(2))).isEqualTo(value(2, 11));
  }

  @Test
  void aDivergenceInAFewSubLeavesExchangesOnlyTheirDigests() {
    MapSide one = new MapSide(NODES.get(0));
    MapSide other = new MapSide(NODES.get(1));
    holdBoth(one, other, 3000, 1);
    List<Integer> diverged = List.of(7, 700, 1400, 2100, 2800);
    for (int i : diverged) other.put(value(i, 2));
    one.put(Entry.tombstone(RepairTreeTest.key(2999), 3)); // a deletion newer than the other's value

    RepairReport report = new PairRepair(one, other, range(3), 8, 3, RepairThrottle.unlimited()).run();

    assertThat(one.records).isEqualTo(other.records);
    assertThat(report.recordsExchanged()).isEqualTo(6);
    assertThat(other.records.get(RepairTreeTest.key(2999)).isTombstone()).isTrue();
    // Each side sent the digests of the sub-leaves (of 2^11) holding a diverged key only: about
    // 1.5 records each, not the ~12 of each of their leaves (of 2^8).
    List<Integer> differing = List.of(7, 700, 1400, 2100, 2800, 2999);
    List<byte[]> inSubLeaves = recordsIn(one, differing, 11);
    assertThat(one.digestsSent).isEqualTo(inSubLeaves.size());
    assertThat(other.digestsSent).isEqualTo(inSubLeaves.size());
    assertThat(inSubLeaves.size()).isLessThan(recordsIn(one, differing, 8).size() / 3);
    // Every byte both remote sides sent or were sent: trees, the sub-leaves' request (a leaf
    // bitmap) and answer, the digests' request (a leaf bitmap, a mask a leaf) and answer, records.
    long leaves = differing.stream().map(i -> RepairTree.leafOf(RepairTreeTest.key(i), 8)).distinct().count();
    long digests = inSubLeaves.stream().mapToLong(k -> k.length + 17L).sum();
    long records = differing.stream().mapToLong(i -> {
      Entry record = one.records.get(RepairTreeTest.key(i));
      return record.key().length + 17L + (record.value() == null ? 0 : record.value().length);
    }).sum();
    assertThat(report.bytesExchanged()).isEqualTo(2 * (8L * 256 + (32 + 8 * 8 * leaves) + (32 + leaves + digests) + records));
  }

  @Test
  void identicalReplicasExchangeTreesOnly() {
    MapSide one = new MapSide(NODES.get(0));
    MapSide other = new MapSide(NODES.get(1));
    holdBoth(one, other, 100, 3);
    RepairReport report = new PairRepair(one, other, range(3), 8, 3, RepairThrottle.unlimited()).run();
    assertThat(report.leavesDiffering()).isZero();
    assertThat(report.recordsExchanged()).isZero();
    assertThat(report.bytesExchanged()).isEqualTo(2 * 8L * 256);
  }

  @Test
  void identicalReplicasOfALargerTreeExchangeCoarseTreesOnly() {
    MapSide local = new MapSide(NODES.get(0), false);
    MapSide other = new MapSide(NODES.get(1));
    holdBoth(local, other, 1000, 3);
    RepairReport same = new PairRepair(local, other, range(3), 12, 3, RepairThrottle.unlimited()).run();
    assertThat(same.leavesCompared()).isEqualTo(4096);
    assertThat(same.leavesDiffering()).isZero();
    assertThat(same.bytesExchanged()).as("the peer's tree of 2^6 leaves").isEqualTo(8L * 64);

    other.put(value(500, 4));
    RepairReport differing = new PairRepair(local, other, range(3), 12, 3, RepairThrottle.unlimited()).run();
    assertThat(differing.leavesDiffering()).isEqualTo(1);
    assertThat(local.records).isEqualTo(other.records);
    assertThat(differing.bytesExchanged()).as("both of the peer's trees, and more").isGreaterThan(8L * (64 + 4096));
  }

  @Test
  void randomDivergenceConvergesOnTheNewestRecordOfEveryKeyOfTheRange() {
    long seed = TestSeed.forTest("PairRepairTest.randomDivergence");
    Random random = new Random(seed);
    MapSide one = new MapSide(NODES.get(0));
    MapSide other = new MapSide(NODES.get(1));
    Map<Integer, Entry> newest = new TreeMap<>();
    for (int i = 0; i < 3000; i++) {
      for (MapSide side : List.of(one, other)) {
        if (random.nextInt(4) == 0) continue; // this replica missed the key
        Entry record = random.nextInt(5) == 0 ? Entry.tombstone(RepairTreeTest.key(i), 1 + random.nextInt(4)) : value(i, 1 + random.nextInt(4));
        side.put(record);
        newest.merge(i, record, Entry::newer);
      }
    }
    SharedRange range = range(2);
    new PairRepair(one, other, range, 10, 3, RepairThrottle.unlimited()).run();
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<Integer, Entry> expected : newest.entrySet()) {
      byte[] key = RepairTreeTest.key(expected.getKey());
      Entry want = expected.getValue();
      if (range.contains(key)) {
        // Equal versions of two values count as one write (digests carry no values): the
        // generator makes such ties, which real coordinators never do; compare versions then.
        for (MapSide side : List.of(one, other)) {
          Entry got = side.records.get(key);
          if (got == null || got.version() != want.version() || got.isTombstone() != want.isTombstone()) {
            wrong.add(side.node() + " " + want + " got " + got);
          }
        }
      }
    }
    assertThat(wrong).as("seed %d", seed).isEmpty();
  }

  /** Stores the same {@code count} records, keys 0 to {@code count - 1} at {@code version}, on both sides. */
  private static void holdBoth(MapSide one, MapSide other, int count, long version) {
    for (int i = 0; i < count; i++) {
      one.put(value(i, version));
      other.put(value(i, version));
    }
  }

  /** The keys of {@code side} in the parts (of {@code 2^bits}) of the keys {@code of}. */
  private static List<byte[]> recordsIn(MapSide side, List<Integer> of, int bits) {
    Set<Integer> parts = new HashSet<>();
    for (int i : of) parts.add(RepairTree.leafOf(RepairTreeTest.key(i), bits));
    return side.records.keySet().stream().filter(k -> parts.contains(RepairTree.leafOf(k, bits))).toList();
  }

  private static SharedRange range(int replicas) {
    return new SharedRange(PLACEMENT, NODES.get(0), NODES.get(1), replicas);
  }

  private static Entry value(int i, long version) {
    return new Entry(RepairTreeTest.key(i), version, ("v" + version + "-" + i).getBytes());
  }
}
