package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.Versions;
import dev.shale.storage.memtable.Memtable;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tombstones survive compaction during their grace period and are purged, space and all, after. */
class TombstoneGraceTest {
  private static final long GRACE_MILLIS = 60_000;
  private static final int KEYS = 2_000;

  @TempDir Path dir;

  private final AtomicLong wallMillis = new AtomicLong(1_750_000_000_000L);

  @Test
  void aTombstoneHidesALateOlderWriteDuringGraceAndIsPurgedAfter() {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      for (int i = 0; i < KEYS; i++) engine.put(key(i), new byte[100]);
      long deleteMillis = wallMillis.get();
      for (int i = 0; i < KEYS; i++) engine.delete(key(i));
      engine.compact();
      EngineStats withTombstones = engine.stats();
      assertThat(entryCount(engine)).as("tombstones kept during grace").isEqualTo(KEYS);

      // Replication delivers an older write late, within the grace period: the tombstone hides it.
      wallMillis.addAndGet(GRACE_MILLIS / 2);
      engine.write(key(7), bytes("late"), Versions.of(deleteMillis - 10, 0));
      engine.compact();
      assertThat(engine.get(key(7))).matches(Entry::isTombstone, "the tombstone");
      assertThat(entryCount(engine)).isEqualTo(KEYS);

      wallMillis.addAndGet(GRACE_MILLIS);
      engine.compact();
      for (int i = 0; i < KEYS; i += 97) assertThat(engine.get(key(i))).isNull();
      EngineStats purged = engine.stats();
      assertThat(purged.tables()).as("every record was a purged tombstone").isZero();
      assertThat(purged.tableBytes()).isZero();
      assertThat(withTombstones.tableBytes()).isPositive();
    }
    try (LsmEngine reopened = LsmEngine.open(dir, options(), Hooks.none())) {
      assertThat(reopened.get(key(7))).isNull();
      assertThat(EngineTesting.fileNames(dir)).noneMatch(n -> n.endsWith(".sst"));
    }
  }

  @Test
  void aTombstonePastGraceStaysWhileAnOlderRecordOutsideTheCompactionMayExist() throws Exception {
    long now = wallMillis.get();
    byte[] key = bytes("k");
    Entry tombstone = Entry.tombstone(key, Versions.of(now - GRACE_MILLIS - 1, 0));
    Memtable older = new Memtable();
    older.add(new Entry(key, Versions.of(now - GRACE_MILLIS - 5, 0), bytes("old")));
    Memtable newer = new Memtable();
    newer.add(new Entry(key, Versions.of(now, 0), bytes("new")));

    assertThat(purge(now, older).drop(tombstone)).as("an older value in a memtable").isFalse();
    assertThat(purge(now, newer).drop(tombstone)).as("only a newer value outside").isTrue();
    assertThat(purge(now, new Memtable()).drop(tombstone)).as("nothing outside").isTrue();
    Entry young = Entry.tombstone(key, Versions.of(now - GRACE_MILLIS + 1, 0));
    assertThat(purge(now, new Memtable()).drop(young)).as("within grace").isFalse();
    Entry value = new Entry(key, Versions.of(now - GRACE_MILLIS - 1, 0), bytes("v"));
    assertThat(purge(now, new Memtable()).drop(value)).as("a value").isFalse();
  }

  private static TombstonePurge purge(long now, Memtable memtable) {
    ReadView view = new ReadView(memtable, List.of(), Levels.empty());
    return new TombstonePurge(now, GRACE_MILLIS, view, List.of());
  }

  private static long entryCount(LsmEngine engine) {
    ReadView view = engine.retainViewForTest();
    try {
      return view.tables().stream().mapToLong(t -> t.meta().entryCount()).sum();
    } finally {
      view.release();
    }
  }

  private static byte[] key(int i) {
    return bytes("key-%05d".formatted(i));
  }

  private EngineOptions options() {
    return EngineTesting.smallOptions()
        .withEnv(Env.real().withWallClock(wallMillis::get))
        .withTombstoneGraceMillis(GRACE_MILLIS);
  }
}
