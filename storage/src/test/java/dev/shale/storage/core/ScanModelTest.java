package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static dev.shale.storage.core.EngineTesting.drain;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.Keys;
import dev.shale.storage.SyncMode;
import dev.shale.storage.core.EngineTesting.Model;
import dev.shale.testkit.TestSeed;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engine.scan against a TreeMap model: a seeded random sequence of puts, deletes and writes with
 * the caller's version (often older than the stored one), with memtables small enough, and
 * flushes sometimes held back, that a key's records lie in the active memtable, frozen memtables
 * and several tables at once. Random ranges (inclusive start, exclusive end, open end, empty and
 * inverted ranges), with and without tombstones, are checked as it goes and after reopening.
 * Replay a failure with {@code -Dshale.seed=<seed printed by the run>}.
 */
class ScanModelTest {
  private static final int OPERATIONS = 8_000;
  private static final int KEY_SPACE = 300;

  @TempDir Path dir;

  private final AtomicLong wallMillis = new AtomicLong(1_750_000_000_000L);

  @Test
  void randomRangesMatchTheModelAcrossFlushesAndReopens() {
    long seed = TestSeed.forTest("randomRangesMatchTheModelAcrossFlushesAndReopens");
    Random random = new Random(seed);
    Model model = new Model();
    FlushGate gate = new FlushGate(); // one per engine: closing an engine cancels its gate
    EngineOptions options = options();
    LsmEngine engine = LsmEngine.open(dir, options, Hooks.withGate(gate));
    int scans = 0;
    try {
      for (int op = 0; op < OPERATIONS; op++) {
        String context = "seed " + seed + ", op " + op;
        write(engine, model, random);
        steerFlushes(engine, gate, random);
        if (random.nextInt(100) < 4) {
          assertRandomScan(engine, model, random, context);
          scans++;
        }
        if (random.nextInt(2_000) == 0) {
          engine.close();
          gate = new FlushGate();
          engine = LsmEngine.open(dir, options, Hooks.withGate(gate));
          assertRandomScans(engine, model, random, context + ", after reopen", 20);
        }
      }
      gate.release();
      assertThat(engine.stats().tables()).as("seed %d: tables", seed).isGreaterThan(5);
      assertRandomScans(engine, model, random, "seed " + seed + ", at the end", 100);
    } finally {
      gate.release();
      engine.close();
    }
    try (LsmEngine reopened = LsmEngine.open(dir, options, Hooks.none())) {
      assertRandomScans(reopened, model, random, "seed " + seed + ", after the last reopen", 100);
      assertThat(drain(reopened.scan(new byte[0], null, true)))
          .as("seed %d: the whole store", seed)
          .containsExactlyElementsOf(model.scan(new byte[0], null, true));
    }
    System.out.println("seed " + seed + ": " + scans + " scans checked along the way");
  }

  private void assertRandomScans(LsmEngine engine, Model model, Random random, String context, int count) {
    for (int i = 0; i < count; i++) assertRandomScan(engine, model, random, context + ", scan " + i);
  }

  private static void assertRandomScan(LsmEngine engine, Model model, Random random, String context) {
    byte[] start = boundary(random);
    byte[] end = random.nextInt(5) == 0 ? null : boundary(random);
    boolean includeTombstones = random.nextBoolean();
    assertThat(drain(engine.scan(start, end, includeTombstones)))
        .as("%s: scan [%s, %s) %s tombstones", context, display(start), display(end),
            includeTombstones ? "with" : "without")
        .containsExactlyElementsOf(model.scan(start, end, includeTombstones));
  }

  private void write(LsmEngine engine, Model model, Random random) {
    wallMillis.addAndGet(random.nextInt(3)); // often the same millisecond: logical ticks
    byte[] key = key(random);
    int kind = random.nextInt(100);
    if (kind < 55) {
      byte[] value = value(random);
      model.apply(new Entry(key, engine.put(key, value), value));
    } else if (kind < 70) {
      model.apply(Entry.tombstone(key, engine.delete(key)));
    } else {
      Entry stored = model.get(key);
      long version = stored == null || random.nextBoolean()
          ? (long) (random.nextDouble() * engine.stats().lastVersion())
          // Just older, a tie, or just newer; never below 0 (the first write may carry version 0).
          : Math.max(0, stored.version() + random.nextInt(3) - 1);
      byte[] value = random.nextInt(4) == 0 ? null : value(random);
      engine.write(key, value, version);
      model.apply(new Entry(key, version, value));
    }
  }

  // Holds flushes now and then, so frozen memtables pile up in the view, and lets them go before
  // writers would stall.
  private static void steerFlushes(LsmEngine engine, FlushGate gate, Random random) {
    if (engine.stats().immutableMemtables() >= 3) gate.release();
    else if (random.nextInt(500) == 0) gate.hold();
  }

  /** A scan boundary: a stored-looking key, a neighbour of one, a prefix, the very first or last. */
  private static byte[] boundary(Random random) {
    return switch (random.nextInt(8)) {
      case 0 -> new byte[0];
      case 1 -> new byte[] {(byte) 0xFF, (byte) 0xFF};
      case 2 -> Arrays.copyOf(key(random), key(random).length + 1); // a key followed by 0x00
      case 3 -> bytes("key-" + random.nextInt(KEY_SPACE / 10)); // a prefix of ten or so keys
      default -> key(random);
    };
  }

  private static byte[] key(Random random) {
    if (random.nextInt(40) == 0) {
      byte[] binary = new byte[1 + random.nextInt(8)];
      random.nextBytes(binary);
      return binary;
    }
    return bytes("key-" + random.nextInt(KEY_SPACE));
  }

  private static byte[] value(Random random) {
    int length = random.nextInt(10) == 0 ? 1_000 + random.nextInt(4_000) : random.nextInt(300);
    byte[] value = new byte[length];
    random.nextBytes(value);
    return value;
  }

  private static String display(byte[] key) {
    return key == null ? "null" : Keys.toDisplay(key);
  }

  private EngineOptions options() {
    return EngineTesting.smallOptions()
        .withSyncMode(SyncMode.INTERVAL)
        .withMaxImmutableMemtables(8)
        .withEnv(Env.real().withWallClock(wallMillis::get))
        .withBlockSizeBytes(512)
        // Many overlapping L0 tables are what this test scans across; CompactionModelTest scans
        // across compacted levels.
        .withL0Triggers(1_000, 1_000, 1_000)
        // Writes here carry versions from any time, and scans with tombstones expect every one
        // the model holds: none may be purged.
        .withTombstoneGraceMillis(Long.MAX_VALUE);
  }
}
