package dev.shale.storage.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The base level and level targets derived from a store's shape (LevelTargets' javadoc). */
class LevelTargetsTest {
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;
  private static final long BASE = 256 * MIB;

  @Test
  void anEmptyStoreCompactsLevel0IntoTheLastLevelAndNoLevelIsDue() {
    LevelTargets targets = LevelTargets.of(bytes(), BASE);

    assertThat(targets.baseLevel()).isEqualTo(Levels.LAST);
    for (int level = 1; level < Levels.LAST; level++) {
      assertThat(targets.targetBytes(level)).as("L%d", level).isEqualTo(Long.MAX_VALUE);
    }
  }

  @Test
  void aStoreOfAtMostTheBaseSizeKeepsTheLastLevelAsBase() {
    LevelTargets targets = LevelTargets.of(bytes(0, 0, 0, 0, 0, 0, 113 * MIB), BASE);

    assertThat(targets.baseLevel()).isEqualTo(Levels.LAST);
    assertThat(targets.targetBytes(5)).as("above the base").isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theBaseMovesUpOnceTheLastLevelOutgrowsTheBaseSize() {
    LevelTargets targets = LevelTargets.of(bytes(0, 0, 0, 0, 0, 0, 300 * MIB), BASE);

    assertThat(targets.baseLevel()).isEqualTo(5);
    // 30 MiB in the ideal shape, raised to the floor: no level smaller than one L0 compaction.
    assertThat(targets.targetBytes(5)).isEqualTo(BASE);
    assertThat(targets.targetBytes(4)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void deeperLevelsGetTenTimesTheOneAboveUpToTheLargestLevelsRealSize() {
    LevelTargets targets = LevelTargets.of(bytes(0, 0, 0, 0, 90 * MIB, 900 * MIB, 10_000 * MIB), BASE);

    assertThat(targets.baseLevel()).isEqualTo(4);
    assertThat(targets.targetBytes(4)).isEqualTo(BASE); // 100 MiB, raised to the floor
    assertThat(targets.targetBytes(5)).isEqualTo(1_000 * MIB);
    assertThat(targets.targetBytes(6)).isEqualTo(10_000 * MIB);
  }

  @Test
  void aHugeStoreHasLevel1AsBaseAtTheBaseSize() {
    long largest = 100L * 1024 * GIB;
    LevelTargets targets = LevelTargets.of(bytes(0, 0, 0, 0, 0, 0, largest), BASE);

    assertThat(targets.baseLevel()).isEqualTo(1);
    assertThat(targets.targetBytes(1)).isEqualTo(BASE);
    assertThat(targets.targetBytes(2)).isEqualTo(10 * BASE);
    assertThat(targets.targetBytes(6)).isEqualTo(100_000 * BASE);
  }

  @Test
  void aStoreWithMoreLevelsThanItsDataNeedsHasItsBaseWhereTheDataWouldBe() {
    // As a store written under static targets (64 MiB level 1, x10) is found: levels 1 and 2
    // lie above the base, so they drain (CompactionPicker).
    LevelTargets targets = LevelTargets.of(bytes(0, 64 * MIB, 50 * MIB, 0, 0, 0, 0), BASE);

    assertThat(targets.baseLevel()).isEqualTo(Levels.LAST);
  }

  @Test
  void aStoreThatShrankHasItsBaseBackDown() {
    // Level 5 was the base while level 6 held 2 GiB; deletes left it 100 MiB.
    LevelTargets targets = LevelTargets.of(bytes(0, 0, 0, 0, 0, 200 * MIB, 100 * MIB), BASE);

    assertThat(targets.baseLevel()).isEqualTo(Levels.LAST);
  }

  @Test
  void levelZerosBytesPlayNoPart() {
    assertThat(LevelTargets.of(bytes(GIB, 0, 0, 0, 0, 0, 0), BASE).baseLevel()).isEqualTo(Levels.LAST);
  }

  @Test
  void aListOfTheWrongLengthIsRefused() {
    assertThatThrownBy(() -> LevelTargets.of(List.of(1L, 2L), BASE))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // Bytes of levels 0, 1, ... as given, the rest 0.
  private static List<Long> bytes(long... perLevel) {
    List<Long> bytes = new ArrayList<>();
    for (int level = 0; level < Levels.COUNT; level++) bytes.add(level < perLevel.length ? perLevel[level] : 0);
    return bytes;
  }
}
