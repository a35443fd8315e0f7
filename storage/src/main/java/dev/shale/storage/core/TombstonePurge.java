package dev.shale.storage.core;

import dev.shale.storage.Entry;
import dev.shale.storage.StorageException;
import dev.shale.storage.Versions;
import dev.shale.storage.memtable.Memtable;
import dev.shale.storage.table.BlockPins;
import dev.shale.storage.table.FoundRecord;
import dev.shale.storage.table.Table;
import dev.shale.storage.util.Murmur3.Hash128;
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
  private final Levels levels;
  private final Set<Long> inputNumbers = new HashSet<>();
  private long dropped;

  TombstonePurge(long nowMillis, long graceMillis, ReadView view, List<SharedTable> inputs) {
    this.nowMillis = nowMillis;
    this.graceMillis = graceMillis;
    memtables.add(view.active());
    for (FrozenMemtable f : view.frozen()) memtables.add(f.memtable());
    this.levels = view.levels();
    for (SharedTable t : inputs) inputNumbers.add(t.fileNumber());
  }

  /**
   * True if {@code winner}, the surviving record of its key among the inputs, may go. An expired
   * value is a tombstone of its version here, by the same two conditions: dropped any earlier, an
   * older value of its key outside the inputs would come back (docs/design.md, "Expiring values").
   */
  boolean drop(Entry winner) {
    boolean deadRecord = winner.isTombstone() || winner.expiredAt(nowMillis);
    if (!deadRecord || !pastGrace(winner.version())) return false;
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
    Hash128 keyHash = Table.filterHash(key); // the same for every memtable and table filter: hashed once
    for (Memtable m : memtables) {
      if (m.minVersion() > version) continue;
      FoundRecord e = m.find(key, keyHash);
      if (e != null && e.version() <= version) return true;
    }
    for (SharedTable t : levels.level(0)) {
      if (mayHoldOlder(t, key, keyHash, version)) return true;
    }
    for (int level = 1; level < Levels.COUNT; level++) {
      SharedTable t = levels.find(level, key); // at most one table per level can hold the key
      if (t != null && mayHoldOlder(t, key, keyHash, version)) return true;
    }
    return false;
  }

  private boolean mayHoldOlder(SharedTable t, byte[] key, Hash128 keyHash, long version) {
    if (inputNumbers.contains(t.fileNumber())) return false;
    if (t.minVersion() > version || !t.covers(key)) return false;
    try (BlockPins pins = new BlockPins()) {
      FoundRecord e = t.find(key, keyHash, pins);
      return e != null && e.version() <= version;
    } catch (StorageException unreadable) {
      return true; // a table we cannot read might hold anything: keep the tombstone
    }
  }
}
