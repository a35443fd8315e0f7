package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Entry;
import dev.shale.storage.Env;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Versions;
import dev.shale.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded random sequence of adds, removals and reopens against a model of what the store must
 * hold: per (target, key) the record that wins by the engine's rules (docs/format.md, "Hints"),
 * with the byte bound applied. Replay a failure with {@code -Dshale.seed=<seed>}.
 */
class HintStoreModelTest {
  static final List<NodeAddress> TARGETS =
      List.of(new NodeAddress("127.0.0.1", 1), new NodeAddress("127.0.0.1", 12), new NodeAddress("10.0.0.7", 8080));
  static final long NOW = 1_800_000_000_000L;
  static final long MAX_BYTES = 4_000;

  @TempDir Path dir;
  HintStore store;

  /** The model's record of a (target, key): a live hint, or the removal of one (removed). */
  record Stored(Hint hint, boolean removed) {}

  @AfterEach
  void close() {
    if (store != null) store.close();
  }

  @Test
  void randomOperationsMatchTheModel() {
    long seed = TestSeed.forTest("HintStoreModelTest");
    Random random = new Random(seed);
    HintLimits limits = new HintLimits(MAX_BYTES, 3_600_000, 1_000);
    store = HintStore.open(dir, limits, SyncMode.INTERVAL, Env.real().withWallClock(() -> NOW));
    Map<String, Stored> model = new HashMap<>();
    Map<String, Integer> highestLogical = new HashMap<>();
    long modelBytes = 0;
    int refused = 0;

    for (int step = 0; step < 3_000; step++) {
      int op = random.nextInt(100);
      if (op < 2) {
        store.close();
        store = HintStore.open(dir, limits, SyncMode.INTERVAL, Env.real().withWallClock(() -> NOW));
      } else if (op < 30 && !model.isEmpty()) {
        modelBytes -= remove(random, model);
      } else {
        NodeAddress target = TARGETS.get(random.nextInt(TARGETS.size()));
        String key = "k" + random.nextInt(25);
        String id = target.id() + "/" + key;
        Stored stored = model.get(id);
        // Older versions only against a live hint: a removal tombstone may be purged by
        // compaction, after which an older hint would (harmlessly) be kept again.
        int top = highestLogical.getOrDefault(id, 0);
        int logical = stored != null && !stored.removed() && random.nextInt(3) == 0
            ? random.nextInt(top + 1) : top + 1 + random.nextInt(3);
        highestLogical.merge(id, logical, Math::max);
        byte[] value = random.nextInt(5) == 0 ? null : randomValue(random);
        Hint fresh = new Hint(target, key.getBytes(StandardCharsets.UTF_8), value, Versions.of(NOW, logical));

        long growth = growth(stored, fresh);
        boolean covered = stored != null && isCovered(stored, fresh);
        boolean expectRefused = !covered && growth > 0 && modelBytes + growth > MAX_BYTES;
        boolean added = store.add(target, fresh.key(), value, fresh.version());
        assertThat(added).as("step %d: add %s over %s with %d bytes held", step, fresh, stored, modelBytes).isEqualTo(!expectRefused);
        if (expectRefused) refused++;
        if (!covered && !expectRefused) {
          model.put(id, new Stored(fresh, false));
          modelBytes += growth;
        }
      }
      if (step % 100 == 0) check(model, modelBytes, step);
    }
    check(model, modelBytes, -1);
    assertThat(store.refusedFull()).isLessThanOrEqualTo(refused);
  }

  // ---- the model ----

  /** Whether the stored record wins over {@code fresh} by the engine's rules (the add changes nothing). */
  @SuppressWarnings("ReferenceEquality") // which of the two objects newer() chose, as HintStore asks
  private static boolean isCovered(Stored stored, Hint fresh) {
    byte[] key = {1};
    Entry old = stored.removed()
        ? Entry.tombstone(key, stored.hint().version())
        : new Entry(key, stored.hint().version(), HintFormat.value(stored.hint().value()));
    return Entry.newer(old, new Entry(key, fresh.version(), HintFormat.value(fresh.value()))) == old;
  }

  private static long size(Hint hint) {
    byte[] key = HintFormat.key(HintFormat.prefix(hint.target()), hint.key());
    return HintFormat.sizeBytes(key, HintFormat.value(hint.value()));
  }

  private static long growth(Stored stored, Hint fresh) {
    return size(fresh) - (stored == null || stored.removed() ? 0 : size(stored.hint()));
  }

  /** Removes a random hint: the live one (as delivery does), or a stale copy that must not remove. */
  private long remove(Random random, Map<String, Stored> model) {
    List<String> ids = new ArrayList<>(model.keySet());
    String id = ids.get(random.nextInt(ids.size()));
    Stored stored = model.get(id);
    Hint live = stored.hint();
    boolean stale = random.nextInt(4) == 0;
    Hint attempt = stale ? new Hint(live.target(), live.key(), live.value(), live.version() - 1) : live;
    boolean removed = store.remove(attempt);
    boolean expected = !stored.removed() && !stale;
    assertThat(removed).as("remove %s (model: %s)", attempt, stored).isEqualTo(expected);
    if (!expected) return 0;
    model.put(id, new Stored(live, true));
    return size(live);
  }

  private void check(Map<String, Stored> model, long modelBytes, int step) {
    Map<NodeAddress, List<Hint>> expected = new HashMap<>();
    Map<NodeAddress, HintStore.Pending> pending = new TreeMap<>((a, b) -> a.id().compareTo(b.id()));
    model.values().stream().filter(s -> !s.removed()).map(Stored::hint)
        .sorted((a, b) -> java.util.Arrays.compareUnsigned(a.key(), b.key()))
        .forEach(h -> {
          expected.computeIfAbsent(h.target(), t -> new ArrayList<>()).add(h);
          HintStore.Pending p = pending.getOrDefault(h.target(), new HintStore.Pending(0, 0));
          pending.put(h.target(), new HintStore.Pending(p.hints() + 1, p.bytes() + size(h)));
        });
    for (NodeAddress target : TARGETS) {
      assertThat(store.read(target, null, Integer.MAX_VALUE, Long.MAX_VALUE))
          .as("step %d: hints of %s", step, target).isEqualTo(expected.getOrDefault(target, List.of()));
    }
    assertThat(store.pendingByTarget()).as("step %d", step).isEqualTo(pending);
    assertThat(store.pendingBytes()).as("step %d", step).isEqualTo(modelBytes);
  }

  private static byte[] randomValue(Random random) {
    byte[] value = new byte[random.nextInt(200)];
    random.nextBytes(value);
    return value;
  }
}
