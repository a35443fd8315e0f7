package dev.shale.cluster.repair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** A DIGESTS request's selection on the wire (docs/format.md, "Repair requests"): a leaf bitmap, a mask of sub-leaves a leaf. */
class LeafSelectionTest {
  @Test
  void subLeavesTravelAsTheBitmapOfTheirLeavesAndOneMaskALeaf() {
    BitSet subLeaves = new BitSet();
    subLeaves.set(3 * 16 + 1); // leaf 3, sub-leaf 1
    subLeaves.set(3 * 16 + 15);
    subLeaves.set(200 * 16); // leaf 200, sub-leaf 0
    LeafSelection selection = new LeafSelection(8, 4, subLeaves);

    assertThat(selection.leafBitmap()).hasSize(32);
    assertThat(BitSet.valueOf(selection.leafBitmap()).stream().toArray()).containsExactly(3, 200);
    assertThat(selection.masks()).containsExactly(0b10, 0x80, 1, 0);
    assertThat(LeafSelection.decode(8, 4, selection.leafBitmap(), selection.masks()).subLeaves()).isEqualTo(subLeaves);
  }

  @Test
  void fewerThanEightSubLeavesTakeAByteEach() {
    BitSet subLeaves = new BitSet();
    subLeaves.set(5 * 2 + 1);
    LeafSelection selection = new LeafSelection(3, 1, subLeaves);
    assertThat(selection.masks()).containsExactly(0b10);
    assertThat(LeafSelection.decode(3, 1, selection.leafBitmap(), selection.masks())).isEqualTo(selection);
  }

  @Test
  void wholeLeavesHaveNoMasks() {
    BitSet leaves = new BitSet();
    leaves.set(9);
    LeafSelection selection = LeafSelection.leaves(4, leaves);
    assertThat(selection.masks()).isEmpty();
    assertThat(LeafSelection.decode(4, 0, selection.leafBitmap(), new byte[0])).isEqualTo(selection);
  }

  @Test
  void masksThatDoNotMatchTheirLeavesAreRefused() {
    byte[] twoLeaves = {0b101, 0};
    assertThatThrownBy(() -> LeafSelection.decode(4, 3, twoLeaves, new byte[] {1})).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LeafSelection.decode(4, 3, twoLeaves, new byte[] {1, 0})).hasMessageContaining("no sub-leaf");
    assertThatThrownBy(() -> LeafSelection.decode(4, 2, twoLeaves, new byte[] {1, 0x10})).hasMessageContaining("past");
    assertThatThrownBy(() -> LeafSelection.decode(4, 0, twoLeaves, new byte[] {1})).hasMessageContaining("no sub-leaf bits");
    assertThatThrownBy(() -> LeafSelection.decode(4, 5, twoLeaves, new byte[0])).hasMessageContaining("sub-leaf bits");
  }
}
