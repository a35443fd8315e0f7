package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.copyDirectory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.Keys;
import dev.shale.storage.MemoryRead;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Vfs;
import dev.shale.testkit.TestSeed;
import dev.shale.storage.core.EngineTesting.Model;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded random sequence of puts, deletes, writes with the caller's version (often older
 * than the stored one) and gets, checked against a TreeMap model applying Entry.newer, with
 * memtables small enough that flushes happen all the time. Replay a failure with
 * {@code -Dshale.seed=<seed printed by the run>}.
 */
class EngineModelTest {
  private static final int OPERATIONS = 20_000;
  private static final int KEY_SPACE = 400;

  @TempDir Path dir;

  private final AtomicLong wallMillis = new AtomicLong(1_750_000_000_000L);
  private int memoryAnswers; // gets that Engine.readFromMemory answered too

  @Test
  void randomOperationsMatchTheModelAcrossCloseAndReopen() {
    randomOperationsMatchTheModel("randomOperationsMatchTheModelAcrossCloseAndReopen", options(SyncMode.INTERVAL), OPERATIONS);
  }

  /** The same with the gets' blocks read with O_DIRECT (Vfs.realDirect), 1 KiB blocks at every offset. */
  @Test
  void randomOperationsMatchTheModelWithDirectReads() {
    EngineOptions options = options(SyncMode.INTERVAL);
    randomOperationsMatchTheModel(
        "randomOperationsMatchTheModelWithDirectReads", options.withEnv(options.env().withVfs(Vfs.realDirect())), OPERATIONS / 4);
  }

  private void randomOperationsMatchTheModel(String name, EngineOptions options, int operations) {
    long seed = TestSeed.forTest(name);
    Random random = new Random(seed);
    Model model = new Model();
    LsmEngine engine = LsmEngine.open(dir, options, Hooks.none());
    int reopens = 0;
    long flushes = 0;
    for (int op = 0; op < operations; op++) {
      step(engine, model, random, "seed " + seed + ", op " + op);
      if (random.nextInt(1_000) < 3) {
        flushes += engine.stats().flushes();
        engine.close();
        engine = LsmEngine.open(dir, options, Hooks.none());
        reopens++;
        model.assertHeldBy(engine, "seed " + seed + ", after reopen at op " + op);
      }
    }
    flushes += engine.stats().flushes();
    engine.close();
    System.out.println("seed " + seed + ": " + reopens + " reopens, " + flushes + " flushes, "
        + memoryAnswers + " reads answered from memory");
    assertThat(flushes).as("seed %d: flushes", seed).isGreaterThan(10);
    assertThat(memoryAnswers).as("seed %d: reads answered from memory", seed).isPositive();

    try (LsmEngine reopened = LsmEngine.open(dir, options, Hooks.none())) {
      model.assertHeldBy(reopened, "seed " + seed + ", after " + reopens + " reopens and one more");
      assertThat(reopened.get(bytes("never written"))).isNull();
    }
  }

  @Test
  void everyAcknowledgedWriteSurvivesACrash() {
    long seed = TestSeed.forTest("everyAcknowledgedWriteSurvivesACrash");
    Random random = new Random(seed);
    Model model = new Model();
    EngineOptions options = options(SyncMode.INTERVAL).withSyncIntervalMillis(3_600_000);
    FlushGate gate = new FlushGate();
    int crashes = 0;
    try (LsmEngine engine = LsmEngine.open(dir.resolve("live"), options, Hooks.withGate(gate))) {
      for (int op = 0; op < OPERATIONS / 2; op++) {
        step(engine, model, random, "seed " + seed + ", op " + op);
        if (random.nextInt(1_000) < 6) {
          Path copy = dir.resolve("crash-" + crashes++);
          copyWhileOpen(engine, gate, copy);
          try (LsmEngine recovered = LsmEngine.open(copy, options, Hooks.none())) {
            model.assertHeldBy(recovered, "seed " + seed + ", crash copy after op " + op);
          }
        }
      }
    }
    assertThat(crashes).as("seed %d: crashes simulated", seed).isPositive();
  }

  // A crash of the process: what write() handed to the OS is in the files, nothing else was
  // done. The gate keeps the flush thread from changing files during the copy.
  private static void copyWhileOpen(LsmEngine engine, FlushGate gate, Path copy) {
    gate.hold();
    try {
      assertThat(gate.awaitIdle(EngineTesting.WAIT_MILLIS, Env.real())).as("flush idle").isTrue();
      copyDirectory(dirOf(engine), copy);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } finally {
      gate.release();
    }
  }

  private static Path dirOf(LsmEngine engine) {
    return engine.directory();
  }

  private void step(LsmEngine engine, Model model, Random random, String context) {
    wallMillis.addAndGet(random.nextInt(3)); // often the same millisecond: logical ticks
    byte[] key = key(random);
    int kind = random.nextInt(100);
    if (kind < 40) {
      byte[] value = value(random);
      long version = engine.put(key, value);
      model.apply(new Entry(key, version, value));
    } else if (kind < 50) {
      long version = engine.delete(key);
      model.apply(Entry.tombstone(key, version));
    } else if (kind < 75) {
      long version = callerVersion(random, model.get(key), engine.stats().lastVersion());
      byte[] value = random.nextInt(5) == 0 ? null : value(random);
      engine.write(key, value, version);
      model.apply(new Entry(key, version, value));
    } else {
      assertThat(engine.get(key))
          .as("%s: get %s", context, Keys.toDisplay(key))
          .isEqualTo(model.get(key));
      // The get has just put its blocks in the cache: memory may answer now, and as get did.
      if (engine.readFromMemory(key) instanceof MemoryRead.Answered(ReadRecord record)) {
        memoryAnswers++;
        try (record) {
          assertThat(record == null ? null : entryOf(key, record))
              .as("%s: read from memory %s", context, Keys.toDisplay(key))
              .isEqualTo(model.get(key));
        }
      }
    }
  }

  private static Entry entryOf(byte[] key, ReadRecord record) {
    return switch (record) {
      case ReadRecord.Copied(Entry entry) -> entry;
      case ReadRecord.Lent lent ->
          new Entry(key, lent.version(), lent.value().toArray(ValueLayout.JAVA_BYTE), lent.expiresAtMillis());
    };
  }

  // Older than the stored record, equal to it (a tie), newer, or anywhere up to the clock.
  private static long callerVersion(Random random, Entry stored, long clock) {
    long base = stored == null ? clock : stored.version();
    return switch (random.nextInt(4)) {
      case 0 -> Math.max(0, base - 1 - random.nextInt(1 << 20));
      case 1 -> base;
      case 2 -> base + 1 + random.nextInt(1 << 10);
      default -> (long) (random.nextDouble() * clock);
    };
  }

  private static byte[] key(Random random) {
    if (random.nextInt(50) == 0) {
      byte[] binary = new byte[1 + random.nextInt(40)];
      random.nextBytes(binary);
      return binary;
    }
    return bytes("key-" + random.nextInt(KEY_SPACE));
  }

  private static byte[] value(Random random) {
    int roll = random.nextInt(100);
    int length;
    if (roll < 70) length = random.nextInt(200);
    else if (roll < 95) length = 200 + random.nextInt(1_800);
    else length = 2_000 + random.nextInt(18_000);
    byte[] value = new byte[length];
    random.nextBytes(value);
    return value;
  }

  private EngineOptions options(SyncMode syncMode) {
    return EngineTesting.smallOptions()
        .withSyncMode(syncMode)
        .withEnv(Env.real().withWallClock(wallMillis::get))
        .withBlockSizeBytes(1024)
        // Writes here carry versions from any time; with tombstones purged they could come
        // back (CompactionModelTest keeps writes within the grace period instead).
        .withTombstoneGraceMillis(Long.MAX_VALUE);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
