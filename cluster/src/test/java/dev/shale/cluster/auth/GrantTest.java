package dev.shale.cluster.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** A grant's prefixes: keys, ranges (against an oracle that walks the range), and the 0xff edge. */
class GrantTest {
  private static final Grant USERS = new Grant(EnumSet.of(Scope.READ), List.of(bytes("user/")));

  @Test
  void keysAndRangesInsideThePrefixAreCoveredOthersAreNot() {
    assertThat(USERS.coversKey(bytes("user/1"))).isTrue();
    assertThat(USERS.coversKey(bytes("user/"))).isTrue();
    assertThat(USERS.coversKey(bytes("user"))).isFalse();
    assertThat(USERS.coversKey(bytes("admin/1"))).isFalse();
    assertThat(USERS.coversRange(bytes("user/"), bytes("user0"))).isTrue();
    assertThat(USERS.coversRange(bytes("user/a"), bytes("user/b"))).isTrue();
    assertThat(USERS.coversRange(bytes("user/"), null)).as("unbounded").isFalse();
    assertThat(USERS.coversRange(bytes("user/"), bytes("user1"))).isFalse();
    assertThat(USERS.coversRange(bytes("user."), bytes("user/z"))).isFalse();
    assertThat(new Grant(EnumSet.of(Scope.READ), List.of()).coversRange(bytes("a"), null)).as("no prefixes: every key").isTrue();
  }

  @Test
  void aPrefixOfOnly0xffBytesCoversEveryRangeFromIt() {
    Grant high = new Grant(EnumSet.of(Scope.READ), List.of(new byte[] {(byte) 0xff}));
    assertThat(high.coversRange(new byte[] {(byte) 0xff}, null)).isTrue();
    assertThat(high.coversRange(new byte[] {(byte) 0xfe}, null)).isFalse();
    assertThat(Grant.pastPrefix(new byte[] {'a', (byte) 0xff})).containsExactly('b');
  }

  /** Over two-byte keys of a small alphabet: a range is covered exactly when every key in it starts with a prefix. */
  @Test
  void coversRangeAgreesWithEveryKeyOfTheRange() {
    long seed = Long.getLong("grant.seed", new SplittableRandom().nextLong());
    System.out.println("GrantTest seed " + seed);
    SplittableRandom random = new SplittableRandom(seed);
    // Prefixes of these bytes; keys also of 0x02, the byte just past 0x01 (a prefix's bound), so
    // that every key that can tell a covered range from one that is not is walked.
    byte[] prefixBytes = {0, 1, (byte) 0xfe, (byte) 0xff};
    byte[] alphabet = {0, 1, 2, (byte) 0xfe, (byte) 0xff};
    for (int round = 0; round < 2_000; round++) {
      Grant grant = new Grant(EnumSet.of(Scope.READ), List.of(key(random, prefixBytes, 1 + random.nextInt(2))));
      byte[] start = key(random, alphabet, random.nextInt(3));
      byte @Nullable [] end = random.nextInt(4) == 0 ? null : key(random, alphabet, random.nextInt(4));
      boolean every = true;
      // Every key of up to 3 bytes in [start, end): enough for prefixes of up to 2 bytes.
      for (byte[] key : allKeys(alphabet, 3)) {
        boolean in = dev.shale.storage.Keys.compare(key, start) >= 0 && (end == null || dev.shale.storage.Keys.compare(key, end) < 0);
        if (in && !grant.coversKey(key)) every = false;
      }
      boolean empty = end != null && dev.shale.storage.Keys.compare(start, end) >= 0;
      // An unbounded range holds longer keys than the oracle walks: only a prefix of 0xff bytes covers it.
      if (!empty) assertThat(grant.coversRange(start, end)).as("seed " + seed + " round " + round + ": prefix "
          + java.util.HexFormat.of().formatHex(grant.prefixes().getFirst()) + " [" + java.util.HexFormat.of().formatHex(start) + ", "
          + (end == null ? "end" : java.util.HexFormat.of().formatHex(end)) + ")").isEqualTo(every && (end != null
          || Grant.pastPrefix(grant.prefixes().getFirst()) == null));
    }
  }

  private static List<byte[]> allKeys(byte[] alphabet, int maxLength) {
    List<byte[]> keys = new java.util.ArrayList<>(List.of(new byte[0]));
    List<byte[]> last = List.of(new byte[0]);
    for (int length = 1; length <= maxLength; length++) {
      List<byte[]> next = new java.util.ArrayList<>();
      for (byte[] k : last) for (byte b : alphabet) {
        byte[] longer = java.util.Arrays.copyOf(k, k.length + 1);
        longer[k.length] = b;
        next.add(longer);
      }
      keys.addAll(next);
      last = next;
    }
    return keys;
  }

  private static byte[] key(SplittableRandom random, byte[] alphabet, int length) {
    byte[] key = new byte[length];
    for (int i = 0; i < length; i++) key[i] = alphabet[random.nextInt(alphabet.length)];
    return key;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
