package dev.shale.storage.core;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Keys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Chooses the next compaction by score, as LevelDB's VersionSet::Finalize does: level 0 scores
 * its table count over {@code l0CompactionTrigger} (every L0 table costs a read a probe, whatever
 * its size); level n >= 1 scores its bytes over its target, which {@link LevelTargets} derives
 * from the store's shape, as it derives the base level that level 0 compacts into. The highest
 * score >= 1 wins. Within a level n >= 1 the tables are taken round robin by key (a compact
 * pointer per level), so every key range gets its turn.
 *
 * <p>A table found damaged by an earlier compaction ({@link SharedTable#isSetAside}) is never read
 * by a compaction again. Below level 0 it would block its neighbourhood: the level above could
 * never merge into a range it holds, and level 0, whose inputs overlap nearly everything, would
 * grow until writes stop. So its first job is to move it to level 0 (a manifest change, no bytes
 * read): tables there may overlap anything, every read consults each of them, and versions, not
 * levels, decide which record wins (ReadView#get), so reads stay right. From there it is left
 * out of every input and of the L0 count ({@link Levels#level0Backlog}), and the rest of the store
 * compacts around it.
 *
 * <p>Not thread safe: used by the compaction thread only.
 */
final class CompactionPicker {
  private final EngineOptions options;
  // Per level, the largest key of the last table compacted out of it; null: start at the first.
  private final byte[][] compactPointers = new byte[Levels.COUNT][];

  CompactionPicker(EngineOptions options) {
    this.options = options;
  }

  /**
   * A level above the base that holds data drains (LevelTargets): due, but after a level 0 past
   * its trigger and after any level over its target by more than 1%, since the drain is a
   * one-off move of data that reads find wherever it sits, and level 0 is what holds writes back.
   */
  private static final double DRAIN_SCORE = 1.01;

  /**
   * How far over its threshold {@code level} is, for a store whose levels hold {@code bytes};
   * >= 1 means due. The last level never is.
   */
  private double score(Levels levels, List<Long> bytes, LevelTargets targets, int level) {
    if (level == 0) return levels.level0Backlog().size() / (double) options.l0CompactionTrigger();
    if (level == Levels.LAST) return 0;
    if (level < targets.baseLevel()) return bytes.get(level) > 0 ? DRAIN_SCORE : 0;
    return bytes.get(level) / (double) targets.targetBytes(level);
  }

  /**
   * The most urgent compaction, or null if no level is due (or none that is due can be done). A
   * damaged table still below level 0 goes first: its move to level 0 unblocks the rest.
   */
  @Nullable Compaction pick(Levels levels) {
    Compaction setAside = setAsideMove(levels);
    if (setAside != null) return setAside;
    List<Long> bytes = levels.bytesPerLevel();
    LevelTargets targets = LevelTargets.of(bytes, options.levelBaseBytes());
    double[] scores = new double[Levels.LAST];
    List<Integer> due = new ArrayList<>();
    for (int level = 0; level < Levels.LAST; level++) {
      scores[level] = score(levels, bytes, targets, level);
      if (scores[level] >= 1) due.add(level);
    }
    due.sort(Comparator.comparingDouble((Integer l) -> scores[l]).reversed());
    for (int level : due) {
      Compaction c = level == 0 ? pickLevel0(levels, targets.baseLevel()) : pickLevel(levels, level, targets);
      if (c != null) return c;
    }
    return null;
  }

  /** Every table into the last level; null if the store has no table. */
  static @Nullable Compaction full(Levels levels) {
    List<SharedTable> all = levels.all();
    if (all.isEmpty()) return null;
    return new Compaction(0, Levels.LAST, all, List.of(), true, "compact() called");
  }

  // Level-0 tables overlap each other, so all of them go at once (as RocksDB does): taking only
  // some would leave base-level outputs overlapping the L0 tables left behind, which is harmless for
  // versions but leaves the read cost where it was.
  private @Nullable Compaction pickLevel0(Levels levels, int baseLevel) {
    List<SharedTable> inputs = new ArrayList<>();
    for (SharedTable t : levels.level(0)) {
      if (!t.isSetAside()) inputs.add(t);
    }
    if (inputs.isEmpty()) return null;
    List<SharedTable> overlapping = overlappingAt(levels, baseLevel, inputs);
    if (anySetAside(overlapping)) return null; // until its move to level 0, picked first
    return new Compaction(0, baseLevel, inputs, overlapping, false,
        levels.level0Backlog().size() + " L0 tables, trigger " + options.l0CompactionTrigger()
            + ", base level " + baseLevel);
  }

  // The move of the first damaged table below level 0 to level 0, or null if there is none.
  private static @Nullable Compaction setAsideMove(Levels levels) {
    for (int level = 1; level < Levels.COUNT; level++) {
      for (SharedTable t : levels.level(level)) {
        if (t.isSetAside()) {
          return new Compaction(level, 0, List.of(t), List.of(), false,
              "set aside: damaged, no compaction can read it");
        }
      }
    }
    return null;
  }

  private @Nullable Compaction pickLevel(Levels levels, int level, LevelTargets targets) {
    List<SharedTable> tables = levels.level(level);
    int start = firstAfterPointer(tables, compactPointers[level]);
    for (int i = 0; i < tables.size(); i++) {
      SharedTable candidate = tables.get((start + i) % tables.size());
      if (candidate.isSetAside()) continue;
      List<SharedTable> overlapping = overlappingAt(levels, level + 1, List.of(candidate));
      if (anySetAside(overlapping)) continue;
      compactPointers[level] = candidate.largestKey();
      String reason = level < targets.baseLevel()
          ? "L" + level + " lies above base level " + targets.baseLevel() + ": drains"
          : "L" + level + " holds " + levels.levelBytes(level) + " of " + targets.targetBytes(level) + " target bytes";
      return new Compaction(level, level + 1, List.of(candidate), overlapping, false, reason);
    }
    return null;
  }

  private static int firstAfterPointer(List<SharedTable> tables, byte @Nullable [] pointer) {
    if (pointer == null) return 0;
    for (int i = 0; i < tables.size(); i++) {
      if (Keys.compare(tables.get(i).smallestKey(), pointer) > 0) return i;
    }
    return 0;
  }

  private static List<SharedTable> overlappingAt(Levels levels, int level, List<SharedTable> inputs) {
    byte[] smallest = inputs.getFirst().smallestKey();
    byte[] largest = inputs.getFirst().largestKey();
    for (SharedTable t : inputs) {
      if (Keys.compare(t.smallestKey(), smallest) < 0) smallest = t.smallestKey();
      if (Keys.compare(t.largestKey(), largest) > 0) largest = t.largestKey();
    }
    return levels.overlapping(level, smallest, largest);
  }

  private static boolean anySetAside(List<SharedTable> tables) {
    for (SharedTable t : tables) {
      if (t.isSetAside()) return true;
    }
    return false;
  }
}
