package dev.shale.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RepairTreeTest {
  private static final int LEAF_BITS = 10;

  @Test
  void identicalRecordsInAnyOrderGiveEqualRoots() {
    RepairTree forward = new RepairTree(LEAF_BITS);
    RepairTree backward = new RepairTree(LEAF_BITS);
    for (int i = 0; i < 1000; i++) forward.add(key(i), 100 + i, i % 7 == 0);
    for (int i = 999; i >= 0; i--) backward.add(key(i), 100 + i, i % 7 == 0);
    assertThat(forward.root()).isEqualTo(backward.root());
    assertThat(forward.differingLeaves(backward).isEmpty()).isTrue();
  }

  @Test
  void oneDifferingRecordChangesExactlyItsLeafAndTheRoot() {
    RepairTree one = new RepairTree(LEAF_BITS);
    RepairTree other = new RepairTree(LEAF_BITS);
    for (int i = 0; i < 1000; i++) {
      one.add(key(i), 100, false);
      if (i != 500) other.add(key(i), 100, false);
    }
    BitSet differing = one.differingLeaves(other);
    assertThat(differing.cardinality()).isEqualTo(1);
    assertThat(differing.nextSetBit(0)).isEqualTo(RepairTree.leafOf(key(500), LEAF_BITS));
    assertThat(one.root()).isNotEqualTo(other.root());
  }

  @Test
  void theVersionAndTheTombstoneFlagCount() {
    RepairTree value = tree(key(1), 7, false);
    assertThat(tree(key(1), 8, false)).isNotEqualTo(value);
    assertThat(tree(key(1), 7, true)).isNotEqualTo(value);
    assertThat(tree(key(1), 7, false)).isEqualTo(value);
  }

  @Test
  void theExpiryCountsAndARecordWithoutOneHashesAsBefore() {
    RepairTree plain = tree(key(1), 7, false);
    RepairTree never = new RepairTree(LEAF_BITS);
    never.add(key(1), 7, false, 0);
    assertThat(never).isEqualTo(plain);
    RepairTree expiring = new RepairTree(LEAF_BITS);
    expiring.add(key(1), 7, false, 1_764_000_000_000L);
    RepairTree later = new RepairTree(LEAF_BITS);
    later.add(key(1), 7, false, 1_764_000_000_001L);
    assertThat(expiring).isNotEqualTo(plain).isNotEqualTo(later);
  }

  @Test
  void tombstoneMarksOfOneLeafDoNotCancelOut() {
    // Two tombstones in one leaf: were the mark XORed outside the record's mix, the two marks
    // would cancel and the leaf would equal that of two values.
    byte[] first = key(1);
    byte[] second = sameLeafAs(first);
    RepairTree values = new RepairTree(3);
    values.add(first, 5, false);
    values.add(second, 5, false);
    RepairTree tombstones = new RepairTree(3);
    tombstones.add(first, 5, true);
    tombstones.add(second, 5, true);
    assertThat(tombstones.root()).isNotEqualTo(values.root());
  }

  @Test
  void randomDivergenceIsFoundInExactlyTheLeavesOfTheDifferingKeys() {
    long seed = TestSeed.forTest("RepairTreeTest.randomDivergence");
    Random random = new Random(seed);
    RepairTree one = new RepairTree(12);
    RepairTree other = new RepairTree(12);
    Set<Integer> expected = new HashSet<>();
    for (int i = 0; i < 20_000; i++) {
      long version = 1 + random.nextInt(1000);
      boolean tombstone = random.nextInt(10) == 0;
      one.add(key(i), version, tombstone);
      switch (random.nextInt(100)) {
        case 0 -> expected.add(RepairTree.leafOf(key(i), 12)); // missing on the other
        case 1 -> {
          other.add(key(i), version + 1, tombstone);
          expected.add(RepairTree.leafOf(key(i), 12));
        }
        case 2 -> {
          other.add(key(i), version, !tombstone);
          expected.add(RepairTree.leafOf(key(i), 12));
        }
        default -> other.add(key(i), version, tombstone);
      }
    }
    BitSet differing = one.differingLeaves(other);
    assertThat(differing.stream().boxed().toList()).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void leafBitsOutsideTheProtocolsRangeAreRefused() {
    assertThatThrownBy(() -> new RepairTree(2)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RepairTree(17)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RepairTree.ofLeaves(4, new long[15])).isInstanceOf(IllegalArgumentException.class);
  }

  private static RepairTree tree(byte[] key, long version, boolean tombstone) {
    RepairTree tree = new RepairTree(LEAF_BITS);
    tree.add(key, version, tombstone);
    return tree;
  }

  private static byte[] sameLeafAs(byte[] key) {
    for (int i = 2; ; i++) {
      if (RepairTree.leafOf(key(i), 3) == RepairTree.leafOf(key, 3)) return key(i);
    }
  }

  @Test
  void aCoarsenedTreeIsTheTreeOfFewerLeaves() {
    RepairTree fine = new RepairTree(12);
    RepairTree coarse = new RepairTree(6);
    for (int i = 0; i < 2000; i++) {
      fine.add(key(i), i, i % 7 == 0);
      coarse.add(key(i), i, i % 7 == 0);
    }
    assertThat(fine.coarsened(6)).isEqualTo(coarse);
    assertThat(fine.coarsened(12)).isEqualTo(fine);
  }

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }
}
