package dev.shale.storage.core;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Keys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Chooses the next compaction by score, as LevelDB's VersionSet::Finalize does: level 0 scores
 * its table count over {@code l0CompactionTrigger} (every L0 table costs a read a probe, whatever
 * its size); level n >= 1 scores its bytes over its target ({@code levelBaseBytes} x 10^(n-1)).
 * The highest score >= 1 wins. Within a level n >= 1 the tables are taken round robin by key (a
 * compact pointer per level), so every key range gets its turn.
 *
 * <p>Tables in {@code quarantined} (found corrupt by an earlier compaction) are never picked, nor
 * is work that would have to read them: the rest of the store goes on compacting.
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

  /** The target size of level {@code level} >= 1. */
  static long targetBytes(EngineOptions options, int level) {
    long target = options.levelBaseBytes();
    for (int i = 1; i < level; i++) {
      target = target > Long.MAX_VALUE / Levels.SIZE_MULTIPLIER
          ? Long.MAX_VALUE : target * Levels.SIZE_MULTIPLIER;
    }
    return target;
  }

  /** How far over its threshold {@code level} is; >= 1 means due. The last level never is. */
  static double score(EngineOptions options, Levels levels, int level) {
    if (level == 0) return levels.level(0).size() / (double) options.l0CompactionTrigger();
    if (level == Levels.LAST) return 0;
    return levels.levelBytes(level) / (double) targetBytes(options, level);
  }

  /** The most urgent compaction, or null if no level is due (or none that is due can be done). */
  Compaction pick(Levels levels, Set<Long> quarantined) {
    List<Integer> due = new ArrayList<>();
    for (int level = 0; level < Levels.LAST; level++) {
      if (score(options, levels, level) >= 1) due.add(level);
    }
    due.sort(Comparator.comparingDouble((Integer l) -> score(options, levels, l)).reversed());
    for (int level : due) {
      Compaction c = level == 0 ? pickLevel0(levels, quarantined) : pickLevel(levels, level, quarantined);
      if (c != null) return c;
    }
    return null;
  }

  /** Every table into the last level; null if the store has no table. */
  static Compaction full(Levels levels) {
    List<SharedTable> all = levels.all();
    if (all.isEmpty()) return null;
    return new Compaction(0, Levels.LAST, all, List.of(), true, "compact() called");
  }

  // Level-0 tables overlap each other, so all of them go at once (as RocksDB does): taking only
  // some would leave L1 outputs overlapping the L0 tables left behind, which is harmless for
  // versions but leaves the read cost where it was.
  private Compaction pickLevel0(Levels levels, Set<Long> quarantined) {
    List<SharedTable> inputs = new ArrayList<>();
    for (SharedTable t : levels.level(0)) {
      if (!quarantined.contains(t.fileNumber())) inputs.add(t);
    }
    if (inputs.isEmpty()) return null;
    List<SharedTable> overlapping = overlappingAt(levels, 1, inputs);
    if (anyQuarantined(overlapping, quarantined)) return null;
    return new Compaction(0, 1, inputs, overlapping, false,
        levels.level(0).size() + " L0 tables, trigger " + options.l0CompactionTrigger());
  }

  private Compaction pickLevel(Levels levels, int level, Set<Long> quarantined) {
    List<SharedTable> tables = levels.level(level);
    int start = firstAfterPointer(tables, compactPointers[level]);
    for (int i = 0; i < tables.size(); i++) {
      SharedTable candidate = tables.get((start + i) % tables.size());
      if (quarantined.contains(candidate.fileNumber())) continue;
      List<SharedTable> overlapping = overlappingAt(levels, level + 1, List.of(candidate));
      if (anyQuarantined(overlapping, quarantined)) continue;
      compactPointers[level] = candidate.largestKey();
      return new Compaction(level, level + 1, List.of(candidate), overlapping, false,
          "L" + level + " holds " + levels.levelBytes(level) + " of "
              + targetBytes(options, level) + " target bytes");
    }
    return null;
  }

  private static int firstAfterPointer(List<SharedTable> tables, byte[] pointer) {
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

  private static boolean anyQuarantined(List<SharedTable> tables, Set<Long> quarantined) {
    for (SharedTable t : tables) {
      if (quarantined.contains(t.fileNumber())) return true;
    }
    return false;
  }
}
