package dev.shale.storage.manifest;

import dev.shale.storage.CorruptionException;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Keys;
import dev.shale.storage.io.FileNames;
import dev.shale.storage.io.RecordFormat;
import dev.shale.storage.table.TableMeta;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks that a snapshot read from a manifest is one the engine could have written
 * (docs/format.md, "Levels" and "Manifest"): every table at a level from 0 to 6, listed once, with
 * a key range and a version range that are not upside down, and no two tables of a level below
 * 0 overlapping; from format_version 2, its log segments listed in ascending order from
 * log_number, each below next_file_number. A record whose crc holds but breaks one of these is
 * corruption, refused when the manifest is read at open, before the store writes or deletes
 * anything.
 */
final class SnapshotInvariants {
  /*
   * Why here and not when the engine builds its levels: opening writes a new manifest and a new
   * log segment and deletes what the old snapshot no longer names, so a check that runs after the
   * first write refuses a store it has already rewritten (issue 31). The engine's Levels still
   * check ranges on every change, against its own bugs; this is the check of what came off disk.
   */

  private static final int LAST_LEVEL = EngineOptions.LEVELS - 1;

  private SnapshotInvariants() {}

  /**
   * Throws a CorruptionException naming {@code file}, the record at {@code recordOffset} and the
   * tables or segments concerned if {@code loaded}'s snapshot breaks an invariant.
   */
  static void check(Path file, long recordOffset, ManifestLoader.Loaded loaded) {
    ManifestSnapshot snapshot = loaded.snapshot();
    checkTables(file, recordOffset, snapshot);
    if (loaded.listsSegments()) checkSegments(file, recordOffset, snapshot);
  }

  private static void checkTables(Path file, long recordOffset, ManifestSnapshot snapshot) {
    Map<Long, TableMeta> byNumber = new HashMap<>();
    List<List<TableMeta>> levels = new ArrayList<>();
    for (int i = 0; i <= LAST_LEVEL; i++) levels.add(new ArrayList<>());
    for (TableMeta t : snapshot.tables()) {
      if (t.level() < 0 || t.level() > LAST_LEVEL) {
        throw broken(file, recordOffset, "it places " + name(t) + " at level " + t.level()
            + ", outside 0.." + LAST_LEVEL);
      }
      TableMeta earlier = byNumber.putIfAbsent(t.fileNumber(), t);
      if (earlier != null) {
        throw broken(file, recordOffset, "it lists " + name(t) + " twice (at level "
            + earlier.level() + " and at level " + t.level() + "); a table appears at most once");
      }
      if (Keys.compare(t.smallestKey(), t.largestKey()) > 0) {
        throw broken(file, recordOffset, "it gives " + name(t) + " a smallest key above its"
            + " largest key (" + t + ")");
      }
      if (Long.compareUnsigned(t.minVersion(), t.maxVersion()) > 0) {
        throw broken(file, recordOffset, "it gives " + name(t) + " a min_version above its"
            + " max_version (" + t + ")");
      }
      levels.get(t.level()).add(t);
    }
    for (int level = 1; level <= LAST_LEVEL; level++) requireDisjoint(file, recordOffset, level, levels.get(level));
  }

  // The segments that must be on disk (docs/format.md, "Manifest"): ascending from log_number,
  // each numbered before next_file_number; none only when the snapshot names no segment. A
  // log_number that is not the first listed one (a hand edit moving it past a segment never
  // flushed) would have opening delete the segments below it, or keep one none lists.
  private static void checkSegments(Path file, long recordOffset, ManifestSnapshot snapshot) {
    List<Long> segments = snapshot.segments();
    if (segments.isEmpty()) {
      if (snapshot.logNumber() < snapshot.nextFileNumber()) {
        throw broken(file, recordOffset, "it lists no log segment, yet its log_number names "
            + FileNames.log(snapshot.logNumber()) + ", below next_file_number " + snapshot.nextFileNumber()
            + " (only a snapshot naming no segment, a checkpoint's, lists none)");
      }
      return;
    }
    if (segments.getFirst() != snapshot.logNumber()) {
      throw broken(file, recordOffset, "its log_number names " + FileNames.log(snapshot.logNumber())
          + " but the log segments it lists start at " + FileNames.log(segments.getFirst())
          + " (the oldest segment listed is the oldest holding writes in no table)");
    }
    for (int i = 0; i < segments.size(); i++) {
      long segment = segments.get(i);
      if (i > 0 && segment <= segments.get(i - 1)) {
        throw broken(file, recordOffset, "it lists log segments out of order: " + FileNames.log(segment)
            + " after " + FileNames.log(segments.get(i - 1)));
      }
      if (segment >= snapshot.nextFileNumber()) {
        throw broken(file, recordOffset, "it lists log segment " + FileNames.log(segment)
            + ", not below next_file_number " + snapshot.nextFileNumber());
      }
    }
    checkSealedSizes(file, recordOffset, snapshot);
  }

  // A sealed_size (format_version 3, stored beside each listed segment) belongs to a segment
  // writes have left: never the last listed one, the one writes go to, and never below a header.
  private static void checkSealedSizes(Path file, long recordOffset, ManifestSnapshot snapshot) {
    for (Map.Entry<Long, Long> sealed : snapshot.sealedSizes().entrySet()) {
      long segment = sealed.getKey();
      if (segment == snapshot.segments().getLast()) {
        throw broken(file, recordOffset, "it gives " + FileNames.log(segment) + " a sealed_size,"
            + " but only a listed segment before the last (the one writes go to) has one");
      }
      if (sealed.getValue() < RecordFormat.HEADER_BYTES) {
        throw broken(file, recordOffset, "it gives " + FileNames.log(segment) + " a sealed_size of "
            + sealed.getValue() + " bytes, less than a segment's header");
      }
    }
  }

  // Levels 1 to 6: sorted by smallest key, each table must end before the next one starts.
  private static void requireDisjoint(Path file, long recordOffset, int level, List<TableMeta> tables) {
    tables.sort((a, b) -> Keys.compare(a.smallestKey(), b.smallestKey()));
    for (int i = 1; i < tables.size(); i++) {
      TableMeta before = tables.get(i - 1);
      TableMeta after = tables.get(i);
      if (Keys.compare(before.largestKey(), after.smallestKey()) >= 0) {
        throw broken(file, recordOffset, "the key ranges of " + name(before) + " and " + name(after)
            + " overlap at level " + level + " (" + before + ", " + after + ")");
      }
    }
  }

  private static String name(TableMeta t) {
    return FileNames.table(t.fileNumber());
  }

  private static CorruptionException broken(Path file, long recordOffset, String problem) {
    return new CorruptionException(file, "manifest record at offset " + recordOffset + " has a"
        + " valid crc but breaks the invariants of a snapshot: " + problem + " (docs/format.md,"
        + " \"Levels\" and \"Manifest\"). The store was not opened and nothing was deleted or written. Restore the"
        + " directory from a backup, or in a cluster move it aside and let the node be refilled"
        + " from its replicas.");
  }
}
