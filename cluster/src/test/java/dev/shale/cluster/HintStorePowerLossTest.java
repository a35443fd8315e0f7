package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.CrashVfs;
import dev.shale.storage.DurableWrites;
import dev.shale.storage.PowerLossPoint;
import dev.shale.storage.StorageException;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Vfs;
import dev.shale.storage.VfsOp;
import dev.shale.storage.WriteHistory;
import dev.shale.testkit.Await;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power losses at seeded points while hints are added and delivered (read, then removed), through
 * the hint store's log appends and syncs, flushes, manifest replacement and recovery (each store
 * lives several lives: open, check, add and deliver, lose power). A hint is durable when {@link
 * HintStore#add} returns as its engine's SyncMode says: with ALWAYS at once, with INTERVAL once a
 * log sync covered it; a removal likewise. After each loss the store must hold the hints after a
 * prefix of its adds and removals that keeps every durable one: no acknowledged hint lost, and no
 * hint whose removal was durable deliverable again. Replay with {@code -Dshale.seed=N}.
 */
class HintStorePowerLossTest {
  private static final int LIVES = 12;
  private static final int OPERATIONS_PER_LIFE = 300;

  /** Where a life's power loss strikes: the most calls of each kind a life makes. */
  private static final List<PowerLossPoint> POINTS = List.of(
      new PowerLossPoint(VfsOp.APPEND, "*.wal", OPERATIONS_PER_LIFE),
      new PowerLossPoint(VfsOp.SYNC, "*.wal", 100),
      new PowerLossPoint(VfsOp.CREATE, "*.wal", 3),
      new PowerLossPoint(VfsOp.APPEND, "*.sst", 20),
      new PowerLossPoint(VfsOp.SYNC, "*.sst", 2),
      new PowerLossPoint(VfsOp.SYNC_DIRECTORY, "*", 6),
      new PowerLossPoint(VfsOp.CREATE, "MANIFEST-*", 2),
      new PowerLossPoint(VfsOp.SYNC, "MANIFEST-*", 4),
      new PowerLossPoint(VfsOp.DELETE, "*", 4));

  @TempDir Path dir;

  @Test
  void withSyncAlwaysEveryAcknowledgedAddAndRemovalHolds() throws IOException {
    livesOfOneStore(SyncMode.ALWAYS, TestSeed.forTest("HintStorePowerLossTest.always"));
  }

  @Test
  void withSyncIntervalEveryAddAndRemovalASyncCoveredHolds() throws IOException {
    livesOfOneStore(SyncMode.INTERVAL, TestSeed.forTest("HintStorePowerLossTest.interval"));
  }

  private void livesOfOneStore(SyncMode mode, long seed) throws IOException {
    Random random = new Random(seed);
    HintWorkload workload = new HintWorkload(random, 40, 128 << 10);
    WriteHistory history = new WriteHistory(); // of each hint key (HintWorkload.id): its content
    int mustKeep = 0;
    Path store = dir.resolve("life-0");
    for (int life = 0; life < LIVES; life++) {
      PowerLossPoint point = PowerLossPoint.draw(POINTS, random);
      CrashVfs vfs = new CrashVfs(store, dir.resolve("life-" + (life + 1)));
      vfs.losePowerAt(point.trigger());
      String where = "seed " + seed + ", life " + life + ", power loss at " + point;
      HintStore hints;
      try {
        hints = HintWorkload.open(store, mode, vfs);
      } catch (StorageException e) {
        // Lost power during recovery: what survived must open next time, holding the same state.
        assertThat(vfs.lostAt()).as(where + ": open failed without a power loss: " + e).isNotNull();
        store = vfs.powerLoss();
        continue;
      }
      try {
        checkAgainstHistory(hints, history, mustKeep, where);
      } catch (StorageException e) {
        // Lost power in a flush or compaction right after the open: the next life checks.
        assertThat(vfs.lostAt()).as(where + ": a read failed without a power loss: " + e).isNotNull();
        abandon(hints);
        store = vfs.powerLoss();
        continue;
      }
      mustKeep = addAndDeliverUntilPowerLoss(hints, vfs, mode, workload, history, random, where);
      abandon(hints);
      store = vfs.powerLoss();
      System.out.println(where + ": lost at " + vfs.lostAt() + " after " + history.attempted()
          + " adds and removals, keeping at least " + mustKeep);
    }
    try (HintStore hints = HintWorkload.open(store, mode, Vfs.real())) {
      checkAgainstHistory(hints, history, mustKeep, "seed " + seed + ", last open");
    }
  }

  /**
   * Adds hints and delivers some (a batch of a target read, checked against the history, part of
   * it removed) until a call fails because the power is gone, or loses the power after the last.
   * Returns how many of the adds and removals the store must keep.
   */
  private static int addAndDeliverUntilPowerLoss(HintStore hints, CrashVfs vfs, SyncMode mode,
      HintWorkload workload, WriteHistory history, Random random, String where) throws IOException {
    DurableWrites durable = new DurableWrites(vfs);
    try {
      for (int i = 0; i < OPERATIONS_PER_LIFE; i++) {
        if (random.nextInt(4) == 0) {
          deliver(hints, durable, history, random, where);
          continue;
        }
        Hint hint = workload.next();
        history.attempt(HintWorkload.id(hint), HintWorkload.content(hint));
        assertThat(HintWorkload.add(hints, hint)).as(where + ": add of " + hint).isTrue();
        durable.acknowledged();
      }
      // Half the lives end once the interval's log sync made every hint durable, so that in
      // INTERVAL too the power loss finds hints and removals it must keep.
      if (random.nextBoolean()) {
        Await.until(where + ": a log sync covers every acknowledged call", Duration.ofSeconds(10),
            () -> vfs.lostAt() != null || durable.mustKeep(mode) == durable.acknowledgedCount());
      }
    } catch (StorageException e) {
      assertThat(vfs.lostAt()).as(where + ": a call failed with the power on: " + e).isNotNull();
    }
    vfs.powerLoss();
    return durable.mustKeep(mode);
  }

  private static void deliver(
      HintStore hints, DurableWrites durable, WriteHistory history, Random random, String where) {
    NodeAddress target = HintWorkload.TARGETS.get(random.nextInt(HintWorkload.TARGETS.size()));
    for (Hint hint : hints.read(target, null, 1 + random.nextInt(8), Long.MAX_VALUE)) {
      String id = HintWorkload.id(hint);
      assertThat(HintWorkload.content(hint)).as(where + ": delivered " + id).isEqualTo(history.latest(id));
      if (random.nextBoolean()) continue; // the replica did not answer: the hint stays
      history.attempt(id, null);
      assertThat(hints.remove(hint)).as(where + ": removal of " + hint + ", just read").isTrue();
      durable.acknowledged();
    }
  }

  private static void checkAgainstHistory(HintStore hints, WriteHistory history, int mustKeep, String where) {
    Map<String, String> recovered = new TreeMap<>();
    HintWorkload.deliverable(hints).forEach((id, hint) -> recovered.put(id, HintWorkload.content(hint)));
    assertThat(history.consistentPrefix(recovered, mustKeep))
        .as(where + ": the hints after the power loss are those after no prefix of the "
            + history.attempted() + " adds and removals that keeps the first " + mustKeep
            + " (an acknowledged hint lost, or a durably removed one back)")
        .isNotNegative();
    assertThat(hints.pendingHints()).as(where + ": hints counted at open").isEqualTo(recovered.size());
    history.rebase(recovered);
  }

  // An abandoned store's close fails (its files are gone); it must still let its threads go.
  private static void abandon(HintStore hints) {
    try {
      hints.close();
    } catch (StorageException expected) {
      // The power is off.
    }
  }
}
