package dev.shale.storage.core;

import java.util.Arrays;
import java.util.List;

/**
 * Where level 0 compacts to (the base level) and how many bytes each deeper level may hold, both
 * derived from the store's shape as RocksDB's dynamic level sizing derives them
 * ({@code level_compaction_dynamic_level_bytes}, VersionStorageInfo::CalculateBaseBytes, with
 * the drain of levels a store no longer needs that RocksDB added in 8.2).
 *
 * <p>Why not static targets ({@code levelBaseBytes} at level 1, x10 per level): they fit only a
 * store whose last level is full. A 110 MB store under a 64 MiB level 1 keeps half its data in
 * level 1 and the rest in level 2, and an overwrite leaves the new versions in level 1 and the old
 * ones in level 2 until level 1 spills: 1.5x the live data on disk (docs/perf/engine.md, "Table
 * format 3"). Here the largest level is taken as the last level's real size and every level above
 * gets a tenth of the one below, so that, once the store holds more than 10 x
 * {@code levelBaseBytes}, about 90% of it sits in the last level and at most about 10% can be
 * versions superseded there. A smaller store holds at most {@code levelBaseBytes} above its last
 * level, and one of at most {@code levelBaseBytes} has its last level as the base: level 0 merges
 * straight into it, which drops superseded versions at once.
 *
 * <p>How the base is found: the largest level's bytes are what the last level would hold, and
 * each level above it a tenth of the one below; the base is the deepest level whose share so
 * computed is at most {@code levelBaseBytes} (level 1 if none is). No target is below {@code
 * levelBaseBytes}: a level smaller than what one level-0 compaction brings would score ahead of
 * level 0 and leave level 0 to pile up (RocksDB's floor).
 *
 * <p>Levels above the base that hold data are drained: each is due (the picker gives it a score
 * just over 1, below a level 0 past its trigger) until its tables have moved down. That happens to
 * a store that shrank (its base moves back down) and to one written under the static targets of
 * earlier versions, with data from level 1 on; RocksDB (8.2 on) drains such levels too. Reads do
 * not care where a record sits (versions, not levels, decide: ReadView#find), so level 0 may
 * compact into the base while levels above it still drain.
 *
 * <p>Immutable; computed from each {@link Levels} the compaction thread picks from.
 */
final class LevelTargets {
  private static final long NO_TARGET = Long.MAX_VALUE;

  private final int baseLevel;
  private final long[] targetBytes; // per level; NO_TARGET for level 0 and the levels above the base

  private LevelTargets(int baseLevel, long[] targetBytes) {
    this.baseLevel = baseLevel;
    this.targetBytes = targetBytes;
  }

  /** The targets for a store whose levels 0..{@link Levels#LAST} hold {@code bytesPerLevel}. */
  static LevelTargets of(List<Long> bytesPerLevel, long levelBaseBytes) {
    if (bytesPerLevel.size() != Levels.COUNT) {
      throw new IllegalArgumentException("bytes of " + bytesPerLevel.size() + " levels, not " + Levels.COUNT);
    }
    long largest = 0;
    for (int level = 1; level <= Levels.LAST; level++) largest = Math.max(largest, bytesPerLevel.get(level));
    long[] targets = new long[Levels.COUNT];
    Arrays.fill(targets, NO_TARGET);

    int base = Levels.LAST;
    long size = largest;
    while (base > 1 && size > levelBaseBytes) {
      base--;
      size /= Levels.SIZE_MULTIPLIER;
    }
    long target = Math.min(size, levelBaseBytes);
    for (int level = base; level <= Levels.LAST; level++) {
      if (level > base) {
        target = target > NO_TARGET / Levels.SIZE_MULTIPLIER ? NO_TARGET : target * Levels.SIZE_MULTIPLIER;
      }
      targets[level] = Math.max(target, levelBaseBytes);
    }
    return new LevelTargets(base, targets);
  }

  /** Where level 0 compacts to: {@link Levels#LAST} while the store below level 0 is small. */
  int baseLevel() {
    return baseLevel;
  }

  /**
   * The bytes {@code level} (>= 1) may hold before it is due; unbounded above the base level,
   * where a level holding data drains whatever its size (CompactionPicker#score).
   */
  long targetBytes(int level) {
    return targetBytes[level];
  }

  @Override
  public String toString() {
    return "base L" + baseLevel + ", targets " + Arrays.toString(targetBytes);
  }
}
