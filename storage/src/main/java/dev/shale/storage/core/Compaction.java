package dev.shale.storage.core;

import dev.shale.storage.Keys;
import java.util.ArrayList;
import java.util.List;

/**
 * One unit of compaction work: tables of {@code level} and the tables of {@code outputLevel}
 * their keys overlap, merged into new tables at {@code outputLevel}.
 *
 * @param level the level the compaction was picked for
 * @param outputLevel where its outputs go: the base level for level 0 (LevelTargets), {@code
 *     level + 1} for a deeper one, the last level for a full one
 * @param inputs the chosen tables of {@code level} (for a full compaction: every table)
 * @param overlapping the tables of {@code outputLevel} whose ranges meet the inputs'
 * @param full whether this is {@link dev.shale.storage.Engine#compact}'s whole-store compaction
 * @param reason why it was picked, for the log line
 */
record Compaction(int level, int outputLevel, List<SharedTable> inputs,
    List<SharedTable> overlapping, boolean full, String reason) {

  Compaction {
    inputs = List.copyOf(inputs);
    overlapping = List.copyOf(overlapping);
  }

  /** Every table the compaction reads and replaces. */
  List<SharedTable> allInputs() {
    List<SharedTable> all = new ArrayList<>(inputs);
    all.addAll(overlapping);
    return all;
  }

  /**
   * Inputs meeting nothing at the output level, and not each other, move down by a manifest
   * change alone, as in LevelDB (one table) and RocksDB (several level-0 tables): no bytes
   * rewritten. Several disjoint inputs happen when level 0 is filled in key order (fillseq, a
   * bulk load): rewriting them would add a whole copy of the data to the write amplification
   * for nothing. The output level's invariant (ranges sorted and disjoint) holds since neither
   * the inputs nor the tables there meet. A full compaction always rewrites, since it promises
   * to purge.
   */
  boolean isTrivialMove() {
    return !full && overlapping.isEmpty() && pairwiseDisjoint(inputs);
  }

  private static boolean pairwiseDisjoint(List<SharedTable> tables) {
    if (tables.size() == 1) return true;
    List<SharedTable> byKey = new ArrayList<>(tables);
    byKey.sort((a, b) -> Keys.compare(a.smallestKey(), b.smallestKey()));
    for (int i = 1; i < byKey.size(); i++) {
      if (Keys.compare(byKey.get(i - 1).largestKey(), byKey.get(i).smallestKey()) >= 0) return false;
    }
    return true;
  }

  long inputBytes() {
    long bytes = 0;
    for (SharedTable t : allInputs()) bytes += t.sizeBytes();
    return bytes;
  }

  String describe() {
    StringBuilder s = new StringBuilder();
    s.append(full ? "full" : "L" + level).append(" -> L").append(outputLevel).append(" (")
        .append(reason).append("): inputs ");
    appendNumbers(s, inputs);
    if (!overlapping.isEmpty()) {
      s.append(" + L").append(outputLevel).append(' ');
      appendNumbers(s, overlapping);
    }
    return s.toString();
  }

  private static void appendNumbers(StringBuilder s, List<SharedTable> tables) {
    s.append('[');
    for (int i = 0; i < tables.size(); i++) {
      if (i > 0) s.append(", ");
      s.append(tables.get(i).fileNumber());
    }
    s.append(']');
  }
}
