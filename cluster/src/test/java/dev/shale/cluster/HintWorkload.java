package dev.shale.cluster;

import dev.shale.storage.Env;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Versions;
import dev.shale.storage.Vfs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Seeded hints for the hint store's fault tests: two targets and a few keys each, so hints
 * replace and remove one another; versions only rise, so every add is the newest hint of its
 * key and is stored (the bounds are far away). Values are large enough, now and then, that the
 * store's engine flushes and compacts within a test.
 */
final class HintWorkload {
  static final List<NodeAddress> TARGETS =
      List.of(new NodeAddress("127.0.0.1", 1), new NodeAddress("10.0.0.7", 8080));
  static final long NOW = 1_800_000_000_000L;
  static final HintLimits LIMITS = new HintLimits(1L << 30, 3_600_000, 1_000);

  private final Random random;
  private final int keysPerTarget;
  private final int maxValueBytes;
  private long nextVersion = Versions.of(NOW, 0);

  HintWorkload(Random random, int keysPerTarget, int maxValueBytes) {
    this.random = random;
    this.keysPerTarget = keysPerTarget;
    this.maxValueBytes = maxValueBytes;
  }

  static HintStore open(Path dir, SyncMode mode, Vfs vfs) {
    return HintStore.open(dir, LIMITS, mode, Env.real().withVfs(vfs).withWallClock(() -> NOW));
  }

  /** A fresh hint, newer than every one drawn before: a tombstone one time in five. */
  Hint next() {
    NodeAddress target = TARGETS.get(random.nextInt(TARGETS.size()));
    byte[] key = String.format("key-%03d", random.nextInt(keysPerTarget)).getBytes(StandardCharsets.UTF_8);
    byte[] value = null;
    if (random.nextInt(5) != 0) {
      value = new byte[random.nextInt(random.nextInt(4) == 0 ? maxValueBytes : 200)];
      random.nextBytes(value);
    }
    nextVersion += 1 << Versions.LOGICAL_BITS; // one millisecond later
    return new Hint(target, key, value, nextVersion);
  }

  /** Stores {@code hint} as the store's callers do. */
  static boolean add(HintStore store, Hint hint) {
    return store.add(hint.target(), hint.key(), hint.value(), hint.version());
  }

  /** Every hint the store would deliver, all targets, by {@link #id}. */
  static Map<String, Hint> deliverable(HintStore store) {
    Map<String, Hint> hints = new TreeMap<>();
    for (NodeAddress target : TARGETS) {
      for (Hint hint : store.read(target, null, Integer.MAX_VALUE, Long.MAX_VALUE)) hints.put(id(hint), hint);
    }
    return hints;
  }

  /** What a hint is for: its target and key. */
  static String id(Hint hint) {
    return hint.target().id() + "/" + new String(hint.key(), StandardCharsets.UTF_8);
  }

  /** A hint's content in a few characters, for the oracle: version, kind, size and a hash. */
  static String content(Hint hint) {
    return hint.value() == null
        ? hint.version() + " tombstone"
        : hint.version() + " " + hint.value().length + " bytes #" + Arrays.hashCode(hint.value());
  }
}
