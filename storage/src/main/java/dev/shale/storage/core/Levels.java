package dev.shale.storage.core;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Keys;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The tables of a store by level, immutable (docs/format.md, "Levels"). Level 0 holds tables as
 * flushes wrote them, possibly overlapping, newest (highest file number) first; every deeper
 * level holds tables whose key ranges do not overlap, sorted by key, so at most one table of a
 * level can hold a given key and a binary search finds it.
 *
 * <p>Holds no references: the {@link ReadView} that owns a Levels retains its tables.
 */
final class Levels {
  /**
   * L0..L6; x10 per level from a base level of at most 256 MiB (LevelTargets), so level 6 is due
   * past 25 TiB only when level 1 is the base (and the last level is never due).
   */
  static final int COUNT = EngineOptions.LEVELS;
  static final int LAST = COUNT - 1;
  static final int SIZE_MULTIPLIER = 10;

  private static final Comparator<SharedTable> NEWEST_FIRST =
      Comparator.comparingLong(SharedTable::fileNumber).reversed();
  private static final Comparator<SharedTable> BY_KEY =
      (a, b) -> Keys.compare(a.smallestKey(), b.smallestKey());

  private final List<List<SharedTable>> levels;
  // Level 0 split by SharedTable#isSetAside as it stood when these Levels were built; a table set
  // aside since stays in the backlog until the next change of the file set, which its move to
  // level 0 (or, after a restart, the next compaction around it) makes at once.
  private final List<SharedTable> level0Backlog;
  private final List<SharedTable> setAside;

  private Levels(List<List<SharedTable>> levels) {
    this.levels = levels;
    List<SharedTable> backlog = new ArrayList<>();
    List<SharedTable> damaged = new ArrayList<>();
    for (SharedTable t : levels.get(0)) (t.isSetAside() ? damaged : backlog).add(t);
    this.level0Backlog = List.copyOf(backlog);
    this.setAside = List.copyOf(damaged);
  }

  static Levels empty() {
    return of(List.of());
  }

  /**
   * Tables placed by their meta's level. A deeper level whose ranges overlap is corruption (the
   * manifest breaks an invariant the engine keeps), and so is a level past {@link #LAST}.
   */
  static Levels of(Collection<SharedTable> tables) {
    List<List<SharedTable>> byLevel = new ArrayList<>();
    for (int i = 0; i < COUNT; i++) byLevel.add(new ArrayList<>());
    for (SharedTable t : tables) {
      if (t.level() < 0 || t.level() > LAST) {
        throw new CorruptionException(t.path(), "manifest places it at level " + t.level()
            + ", outside 0.." + LAST);
      }
      byLevel.get(t.level()).add(t);
    }
    return sorted(byLevel);
  }

  List<SharedTable> level(int level) {
    return levels.get(level);
  }

  /**
   * The level-0 tables compaction has yet to merge, newest first: all of level 0 but the damaged
   * tables set aside there, which no compaction will ever merge. What the L0 score and the write
   * stalls count, so that a damaged table never holds writes back.
   */
  List<SharedTable> level0Backlog() {
    return level0Backlog;
  }

  /** The damaged tables set aside in level 0 (see CompactionPicker). */
  List<SharedTable> setAside() {
    return setAside;
  }

  /** Every table: level 0 newest first, then each deeper level by key. */
  List<SharedTable> all() {
    List<SharedTable> all = new ArrayList<>();
    for (List<SharedTable> level : levels) all.addAll(level);
    return all;
  }

  int tableCount() {
    int n = 0;
    for (List<SharedTable> level : levels) n += level.size();
    return n;
  }

  long levelBytes(int level) {
    long bytes = 0;
    for (SharedTable t : levels.get(level)) bytes += t.sizeBytes();
    return bytes;
  }

  List<Integer> tablesPerLevel() {
    return levels.stream().map(List::size).toList();
  }

  /** The bytes of the table files at level 0, 1, ... (one element per level). */
  List<Long> bytesPerLevel() {
    List<Long> bytes = new ArrayList<>(levels.size());
    for (List<SharedTable> level : levels) {
      long sum = 0;
      for (SharedTable table : level) sum += table.meta().fileSizeBytes();
      bytes.add(sum);
    }
    return bytes;
  }

  /** The one table of {@code level} (>= 1) whose range holds {@code key}, or null. */
  @Nullable SharedTable find(int level, byte[] key) {
    List<SharedTable> tables = levels.get(level);
    int lo = 0;
    int hi = tables.size() - 1;
    while (lo <= hi) { // the first table whose largest key is >= key
      int mid = (lo + hi) >>> 1;
      if (Keys.compare(tables.get(mid).largestKey(), key) < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    if (lo == tables.size()) return null;
    SharedTable t = tables.get(lo);
    return Keys.compare(t.smallestKey(), key) <= 0 ? t : null;
  }

  /** The tables of {@code level} whose ranges meet {@code [smallest, largest]}. */
  List<SharedTable> overlapping(int level, byte[] smallest, byte[] largest) {
    List<SharedTable> found = new ArrayList<>();
    for (SharedTable t : levels.get(level)) {
      if (t.overlapsClosed(smallest, largest)) found.add(t);
    }
    return found;
  }

  /** These levels with {@code table} added to level 0. */
  Levels withFlushed(SharedTable table) {
    List<List<SharedTable>> next = copy();
    next.get(0).add(table);
    return sorted(next);
  }

  /** These levels with {@code removed} (matched by file number and level) replaced by {@code added}. */
  Levels withReplaced(Collection<SharedTable> removed, Collection<SharedTable> added) {
    Set<String> gone = new HashSet<>();
    for (SharedTable t : removed) gone.add(t.level() + ":" + t.fileNumber());
    List<List<SharedTable>> next = new ArrayList<>();
    int found = 0;
    for (List<SharedTable> level : levels) {
      List<SharedTable> kept = new ArrayList<>();
      for (SharedTable t : level) {
        if (gone.contains(t.level() + ":" + t.fileNumber())) found++;
        else kept.add(t);
      }
      next.add(kept);
    }
    if (found != gone.size()) throw new IllegalStateException("compaction inputs not in the view");
    for (SharedTable t : added) next.get(t.level()).add(t);
    return sorted(next);
  }

  private List<List<SharedTable>> copy() {
    List<List<SharedTable>> copy = new ArrayList<>();
    for (List<SharedTable> level : levels) copy.add(new ArrayList<>(level));
    return copy;
  }

  // Invariant (docs/format.md, "Levels"): level 0 newest first; deeper levels sorted by key with
  // no two ranges overlapping. Checked here, on every change, so a bug cannot publish a view
  // whose binary search would miss a table.
  private static Levels sorted(List<List<SharedTable>> byLevel) {
    List<List<SharedTable>> result = new ArrayList<>();
    for (int i = 0; i < byLevel.size(); i++) {
      List<SharedTable> level = new ArrayList<>(byLevel.get(i));
      level.sort(i == 0 ? NEWEST_FIRST : BY_KEY);
      for (int j = 1; i > 0 && j < level.size(); j++) {
        SharedTable before = level.get(j - 1);
        if (Keys.compare(before.largestKey(), level.get(j).smallestKey()) >= 0) {
          throw new CorruptionException(level.get(j).path(), "level " + i
              + " tables overlap: " + before.meta() + " and " + level.get(j).meta());
        }
      }
      result.add(List.copyOf(level));
    }
    return new Levels(List.copyOf(result));
  }
}
