package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import dev.shale.storage.Versions;
import dev.shale.storage.memtable.Memtable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides whether a compaction may drop a tombstone that won its key among the inputs.
 *
 * <p>Two conditions, both needed. The grace period: the tombstone's version is at least
 * {@code tombstoneGraceMillis} old by the engine's wall clock, read once when the compaction
 * starts. Until then a replica may still be handed an older write of the key (a replication hint
 * delivered late) and must keep the tombstone to hide it. And nothing it hides may resurface: no
 * record of the key with a version <= the tombstone's may exist outside the compaction's inputs.
 * LevelDB checks only the levels below the output (IsBaseLevelForKey), because there newer
 * records always sit higher up; here {@code write()} can store an old version after the
 * tombstone moved down, so the memtables and every table outside the compaction, above or below
 * it, are asked (a key-range and version-bound check first, then a point lookup).
 *
 * <p>A write of an older version arriving after the tombstone was dropped would be visible again:
 * the grace period exists so that none arrives that late (docs/design.md, "Tombstones").
 *
 * <p>Not thread safe: one per compaction. The view must stay retained while it is used.
 */
final class TombstonePurge {
  private final long nowMillis;
  private final long graceMillis;
  private final List<Memtable> memtables = new ArrayList<>();
  private final List<SharedTable> others = new ArrayList<>();
  private long dropped;

  TombstonePurge(long nowMillis, long graceMillis, ReadView view, List<SharedTable> inputs) {
    this.nowMillis = nowMillis;
    this.graceMillis = graceMillis;
    memtables.add(view.active());
    for (FrozenMemtable f : view.frozen()) memtables.add(f.memtable());
    Set<Long> inputNumbers = new HashSet<>();
    for (SharedTable t : inputs) inputNumbers.add(t.fileNumber());
    for (SharedTable t : view.tables()) {
      if (!inputNumbers.contains(t.fileNumber())) others.add(t);
    }
  }

  /** True if {@code winner}, the surviving record of its key among the inputs, may go. */
  boolean drop(Entry winner) {
    if (!winner.isTombstone() || !pastGrace(winner.version())) return false;
    if (olderMayExistOutside(winner.key(), winner.version())) return false;
    dropped++;
    return true;
  }

  long droppedCount() {
    return dropped;
  }

  private boolean pastGrace(long version) {
    return nowMillis - Versions.physicalMillis(version) >= graceMillis;
  }

  // A record of equal version counts too: the tombstone beats it only while both exist.
  private boolean olderMayExistOutside(byte[] key, long version) {
    for (Memtable m : memtables) {
      if (m.minVersion() > version) continue;
      Entry e = m.get(key);
      if (e != null && e.version() <= version) return true;
    }
    for (SharedTable t : others) {
      if (t.minVersion() > version || !t.covers(key)) continue;
      try {
        Entry e = t.get(key);
        if (e != null && e.version() <= version) return true;
      } catch (StorageException unreadable) {
        return true; // a table we cannot read might hold anything: keep the tombstone
      }
    }
    return false;
  }
}
