package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.DiskFullException;
import dev.shale.storage.ErrorInjectingVfs;
import dev.shale.storage.ErrorInjectingVfs.Fault;
import dev.shale.storage.StorageException;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Vfs;
import dev.shale.storage.VfsOp;
import dev.shale.testkit.Await;
import dev.shale.testkit.TestSeed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * I/O errors (EIO, ENOSPC) injected into the hint store's files (its engine's logs, tables and
 * manifests) at seeded points while hints are added and delivered. Each trial asserts the
 * store's contract: an add returns true only for a hint that is then stored (delivered, and kept
 * across a reopen), or throws, or refuses (false, nothing written); a delivery returns only hints
 * the store may hold, never other bytes; once the fault clears the store takes hints again, after
 * a reopen if its engine refuses writes for good. Replay with {@code -Dshale.seed=N}.
 */
class HintStoreDiskErrorTest {
  private static final int TRIALS = 10;
  private static final int OPERATIONS = 250;

  /** Operations on files of a kind, as a fault picks them. */
  private record Target(String glob, VfsOp... ops) {}

  private static final List<Target> TARGETS = List.of(
      new Target("*.wal", VfsOp.APPEND), new Target("*.wal", VfsOp.SYNC),
      new Target("*.wal", VfsOp.CREATE), new Target("*.sst", VfsOp.APPEND, VfsOp.CREATE),
      new Target("*.sst", VfsOp.SYNC), new Target("*", VfsOp.SYNC_DIRECTORY),
      new Target("MANIFEST-*", VfsOp.CREATE, VfsOp.APPEND, VfsOp.SYNC),
      new Target("*", VfsOp.READ, VfsOp.MAP), new Target("*"));

  @TempDir Path dir;

  @Test
  void addsAreStoredOrReportedAndDeliveriesReturnNothingWrong() {
    long seed = TestSeed.forTest("HintStoreDiskErrorTest");
    Random random = new Random(seed);
    for (int trial = 0; trial < TRIALS; trial++) {
      ErrorInjectingVfs vfs = new ErrorInjectingVfs(random.nextLong());
      Fault fault = draw(random);
      // ALWAYS fsyncs every add on the real disk: a third of the trials, to keep the test short.
      SyncMode mode = random.nextInt(3) == 0 ? SyncMode.ALWAYS : SyncMode.INTERVAL;
      String where = "seed " + seed + ", trial " + trial + ", " + mode + ", " + fault;
      Path hints = dir.resolve("trial-" + trial);
      HintWorkload workload = new HintWorkload(random, 40, 256 << 10);
      HintModel model = new HintModel();

      HintStore store = HintWorkload.open(hints, mode, vfs);
      vfs.inject(fault);
      addAndDeliver(store, workload, model, random, where);
      vfs.clear();
      store = takesHintsAfterTheFaultClears(store, hints, mode, vfs, workload, model, where);
      model.check(HintWorkload.deliverable(store), where + ": once the fault cleared");
      store.close();
      try (HintStore reopened = HintWorkload.open(hints, mode, Vfs.real())) {
        Map<String, Hint> deliverable = HintWorkload.deliverable(reopened);
        model.check(deliverable, where + ": after a reopen");
        assertThat(reopened.pendingHints()).as(where + ": hints counted at open").isEqualTo(deliverable.size());
      }
      System.out.println(where + ": " + fault.injected() + " errors, " + model.failed() + " calls failed");
    }
  }

  private static Fault draw(Random random) {
    Target target = TARGETS.get(random.nextInt(TARGETS.size()));
    // Tables and manifests see a few calls per trial (a flush or two); log appends one per write.
    return Fault.drawn(random, OPERATIONS, target.glob(), target.ops());
  }

  /**
   * Adds hints and delivers some (reads a batch of a target, checks it, removes part of it), as
   * HintedHandoff does. Stops at the first refusal for overload: a flush that keeps failing
   * refuses every later add after a stall, and the trial has seen what it came for.
   */
  private static void addAndDeliver(
      HintStore store, HintWorkload workload, HintModel model, Random random, String where) {
    for (int i = 0; i < OPERATIONS; i++) {
      if (random.nextInt(4) == 0) {
        deliver(store, model, random, where);
        continue;
      }
      Hint hint = workload.next();
      try {
        if (!HintWorkload.add(store, hint)) {
          assertThat(store.refusedOverloaded()).as(where + ": why " + hint + " was refused").isPositive();
          return;
        }
        model.added(hint);
      } catch (StorageException e) {
        model.addFailed(hint);
      }
    }
  }

  private static void deliver(HintStore store, HintModel model, Random random, String where) {
    NodeAddress target = HintWorkload.TARGETS.get(random.nextInt(HintWorkload.TARGETS.size()));
    List<Hint> batch;
    try {
      batch = store.read(target, null, 1 + random.nextInt(8), Long.MAX_VALUE);
    } catch (StorageException e) {
      return; // reporting the error is allowed; wrong data is not
    }
    for (Hint hint : batch) {
      assertThat(model.allows(HintWorkload.id(hint), hint)).as(where + ": delivered " + hint).isTrue();
      if (random.nextBoolean()) continue; // the replica did not answer: the hint stays
      try {
        assertThat(store.remove(hint)).as(where + ": removal of " + hint + ", just read").isTrue();
        model.removed(hint);
      } catch (StorageException e) {
        model.removalFailed(hint);
      }
    }
  }

  /**
   * Once the disk works again the store takes hints: at once if no write hit the fault; after a
   * full disk once its engine sees the room again; after any other failed log append or fsync
   * only after a reopen, since its engine refuses writes for good then. Returns the store that
   * takes them.
   */
  private static HintStore takesHintsAfterTheFaultClears(HintStore store, Path hints, SyncMode mode,
      Vfs vfs, HintWorkload workload, HintModel model, String where) {
    try {
      Await.until(where + ": hints are taken again", Duration.ofSeconds(30), () -> {
        Hint probe = workload.next();
        try {
          if (!HintWorkload.add(store, probe)) return false; // overloaded: a flush is retried
          model.added(probe);
          return true;
        } catch (DiskFullException full) {
          model.addFailed(probe);
          return false; // says why, and passes once the engine sees the room
        } catch (StorageException refused) {
          model.addFailed(probe);
          throw refused;
        }
      });
      return store;
    } catch (StorageException refused) {
      assertThat(refused).as(where + ": a refused hint says why").hasMessageContaining("earlier failure");
    }
    try {
      store.close();
    } catch (StorageException closeFailed) {
      // The log could not be synced at close: the reopen below checks nothing acknowledged is lost.
    }
    HintStore reopened = HintWorkload.open(hints, mode, vfs);
    Hint probe = workload.next();
    assertThat(HintWorkload.add(reopened, probe)).as(where + ": a hint taken after the reopen").isTrue();
    model.added(probe);
    return reopened;
  }
}
