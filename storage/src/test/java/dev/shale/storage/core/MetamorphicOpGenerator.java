package dev.shale.storage.core;

import dev.shale.storage.Engine;
import dev.shale.storage.core.MetamorphicOp.VersionChoice;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Draws {@link MetamorphicTest}'s operations from a seed: the same seed, the same list. Keys come
 * from a small, skewed key space (a few hot keys take most writes) so that overwrites, deletes,
 * older versions and reads of deleted keys are common; values run from empty to above
 * {@link Engine#LEND_MIN_VALUE_BYTES} and above every option set's block size, half of them
 * compressible, so every codec has something to compress.
 */
final class MetamorphicOpGenerator {
  static final int KEY_SPACE = 300;
  private static final int HOT_KEYS = 20;
  /** The largest TTL drawn; clock advances reach past it, so values expire while the test runs. */
  static final long MAX_TTL_MILLIS = 3_000;

  private final Random random;

  MetamorphicOpGenerator(long seed) {
    this.random = new Random(seed);
  }

  List<MetamorphicOp> operations(int count) {
    List<MetamorphicOp> ops = new ArrayList<>(count);
    for (int i = 0; i < count; i++) ops.add(next());
    return ops;
  }

  // Weights per mille. Reopens, crashes, checkpoints and compactions are rare: each costs a
  // great deal more than a write, and a few per run already cut the history at many states.
  private MetamorphicOp next() {
    int roll = random.nextInt(1_000);
    if (roll < 240) return new MetamorphicOp.Put(key(), value(), random.nextInt(100) < 15 ? ttl() : 0);
    if (roll < 310) return new MetamorphicOp.Delete(key());
    if (roll < 450) return write();
    if (roll < 490) return batch();
    if (roll < 670) return new MetamorphicOp.Get(key());
    if (roll < 750) return new MetamorphicOp.Read(key(), random.nextInt(4) == 0);
    if (roll < 760) return new MetamorphicOp.ReleaseLeases();
    if (roll < 880) return scan();
    if (roll < 950) return new MetamorphicOp.AdvanceClock(random.nextInt(10) == 0 ? random.nextInt(5_000) : random.nextInt(3));
    if (roll < 962) return new MetamorphicOp.Compact();
    if (roll < 972) return new MetamorphicOp.Checkpoint();
    if (roll < 986) return new MetamorphicOp.Reopen();
    return new MetamorphicOp.Crash();
  }

  private MetamorphicOp.Write write() {
    byte[] value = random.nextInt(5) == 0 ? null : value();
    long ttl = value != null && random.nextInt(10) == 0 ? ttl() : 0;
    return new MetamorphicOp.Write(key(), value, versionChoice(), ttl);
  }

  private MetamorphicOp.WriteBatch batch() {
    List<MetamorphicOp.Write> writes = new ArrayList<>();
    int size = 2 + random.nextInt(7);
    for (int i = 0; i < size; i++) writes.add(write());
    return new MetamorphicOp.WriteBatch(writes);
  }

  // Older by up to ~16 ms of logical ticks, a tie, newer by less than a millisecond (well within
  // HybridClock.MAX_AHEAD_MILLIS), or anywhere up to the clock.
  private VersionChoice versionChoice() {
    return switch (random.nextInt(4)) {
      case 0 -> new VersionChoice(VersionChoice.Kind.OLDER, 1 + random.nextInt(1 << 20), 0);
      case 1 -> new VersionChoice(VersionChoice.Kind.TIE, 0, 0);
      case 2 -> new VersionChoice(VersionChoice.Kind.NEWER, 1 + random.nextInt(1 << 10), 0);
      default -> new VersionChoice(VersionChoice.Kind.FRACTION_OF_CLOCK, 0, random.nextDouble());
    };
  }

  private MetamorphicOp.Scan scan() {
    byte[] start = boundary();
    byte[] end = random.nextInt(5) == 0 ? null : boundary();
    int limit = random.nextInt(10) < 3 ? Integer.MAX_VALUE : random.nextInt(20);
    return new MetamorphicOp.Scan(start, end, random.nextBoolean(), limit);
  }

  /** A scan boundary: the very first or last key, a key, a key followed by 0x00, a prefix of keys. */
  private byte[] boundary() {
    return switch (random.nextInt(8)) {
      case 0 -> new byte[0];
      case 1 -> new byte[] {(byte) 0xFF, (byte) 0xFF};
      case 2 -> {
        byte[] key = key();
        yield Arrays.copyOf(key, key.length + 1);
      }
      case 3 -> bytes("key-" + random.nextInt(KEY_SPACE / 10));
      default -> key();
    };
  }

  private byte[] key() {
    int roll = random.nextInt(100);
    if (roll < 3) {
      byte[] binary = new byte[1 + random.nextInt(40)];
      random.nextBytes(binary);
      return binary;
    }
    if (roll < 5) { // long keys, sorting among the others
      return bytes("key-" + random.nextInt(KEY_SPACE) + "-" + "k".repeat(200 + random.nextInt(800)));
    }
    return bytes("key-" + (roll < 65 ? random.nextInt(HOT_KEYS) : random.nextInt(KEY_SPACE)));
  }

  private byte[] value() {
    int roll = random.nextInt(100);
    int length;
    if (roll < 60) length = random.nextInt(100);
    else if (roll < 85) length = 100 + random.nextInt(2_900);
    else if (roll < 93) length = 3_000 + random.nextInt(17_000); // above most block sizes
    else if (roll < 98) length = Engine.LEND_MIN_VALUE_BYTES + random.nextInt(40_000); // lent by read
    else length = 200_000 + random.nextInt(200_000); // larger than a tiny memtable
    byte[] value = new byte[length];
    if (random.nextBoolean()) {
      random.nextBytes(value);
    } else { // compressible: a short random pattern, repeated
      byte[] pattern = new byte[1 + random.nextInt(16)];
      random.nextBytes(pattern);
      for (int i = 0; i < length; i++) value[i] = pattern[i % pattern.length];
    }
    return value;
  }

  private long ttl() {
    return 1 + random.nextInt((int) MAX_TTL_MILLIS);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
