package dev.shale.storage.core;

import java.util.ArrayList;
import java.util.List;

/**
 * One unit of compaction work: tables of {@code level} and the tables of {@code outputLevel}
 * their keys overlap, merged into new tables at {@code outputLevel}.
 *
 * @param level the level the compaction was picked for
 * @param outputLevel where its outputs go: {@code level + 1}, or the last level for a full one
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
   * One table meeting nothing at the next level moves down by a manifest change alone, as in
   * LevelDB: no bytes rewritten. A full compaction always rewrites, since it promises to purge.
   */
  boolean isTrivialMove() {
    return !full && inputs.size() == 1 && overlapping.isEmpty();
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
