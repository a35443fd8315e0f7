package dev.shale.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Env;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Versions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HintStoreTest {
  static final NodeAddress A = new NodeAddress("127.0.0.1", 1);
  static final NodeAddress A12 = new NodeAddress("127.0.0.1", 12);
  static final NodeAddress B = new NodeAddress("127.0.0.1", 2);
  static final long NOW = 1_800_000_000_000L;
  static final HintLimits LIMITS = new HintLimits(1L << 20, 60_000, 1_000);

  @TempDir Path dir;
  final AtomicLong clock = new AtomicLong(NOW);
  HintStore store;

  @AfterEach
  void closeStore() {
    if (store != null) store.close();
  }

  HintStore open(HintLimits limits) {
    if (store != null) store.close();
    store = HintStore.open(dir, limits, SyncMode.INTERVAL, Env.real().withWallClock(clock::get));
    return store;
  }

  static long version(long millisAfterNow) {
    return Versions.of(NOW + millisAfterNow, 0);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static Hint hint(NodeAddress target, String key, String value, long version) {
    return new Hint(target, bytes(key), value == null ? null : bytes(value), version);
  }

  List<Hint> all(NodeAddress target) {
    return store.read(target, null, Integer.MAX_VALUE, Long.MAX_VALUE);
  }

  @Test
  void aHintOfAnExpiringValueKeepsItsExpiryAcrossARestartAndIsRemovedAsAnyHint() {
    open(LIMITS);
    long expiresAt = NOW + 5_000;
    assertThat(store.add(A, bytes("k1"), bytes("v1"), version(1), expiresAt)).isTrue();
    assertThat(store.add(A, bytes("k2"), bytes("v2"), version(2))).isTrue();
    Hint expiring = new Hint(A, bytes("k1"), bytes("v1"), version(1), expiresAt);
    assertThat(all(A)).containsExactly(expiring, hint(A, "k2", "v2", version(2)));
    // k1: key 1 + 11 + 2, value kind 1 + expires_at 8 + 2, version 8.
    assertThat(store.pendingByTarget().get(A).bytes()).isEqualTo((14 + 11 + 8) + (14 + 3 + 8));

    open(LIMITS);
    assertThat(all(A)).containsExactly(expiring, hint(A, "k2", "v2", version(2)));
    assertThat(store.remove(new Hint(A, bytes("k1"), bytes("v1"), version(1), expiresAt + 1)))
        .as("another expiry is another hint").isFalse();
    assertThat(store.remove(expiring)).isTrue();
    assertThat(all(A)).containsExactly(hint(A, "k2", "v2", version(2)));
    // The hint outlives the value's expiry: the replica still needs the record to hide older ones.
    clock.set(expiresAt + 1);
    assertThat(store.add(A, bytes("k3"), bytes("v3"), version(3), expiresAt)).isTrue();
    assertThat(all(A)).hasSize(2);
  }

  @Test
  void hintsAreReadPerTargetInKeyOrder() {
    open(LIMITS);
    assertThat(store.add(A, bytes("k2"), bytes("v2"), version(2))).isTrue();
    assertThat(store.add(A, bytes("k1"), null, version(1))).isTrue();
    assertThat(store.add(A12, bytes("k0"), bytes("x"), version(3))).isTrue();
    assertThat(store.add(B, bytes("k0"), bytes("y"), version(4))).isTrue();

    assertThat(all(A)).containsExactly(hint(A, "k1", null, version(1)), hint(A, "k2", "v2", version(2)));
    assertThat(all(A12)).containsExactly(hint(A12, "k0", "x", version(3)));
    assertThat(all(B)).containsExactly(hint(B, "k0", "y", version(4)));
    assertThat(store.read(A, bytes("k1"), 10, Long.MAX_VALUE)).containsExactly(hint(A, "k2", "v2", version(2)));
    assertThat(store.read(A, null, 1, Long.MAX_VALUE)).hasSize(1);
    assertThat(store.read(A, null, 10, 1)).as("at least one hint, however small maxBytes").hasSize(1);

    assertThat(store.pendingHints()).isEqualTo(4);
    Map<NodeAddress, HintStore.Pending> pending = store.pendingByTarget();
    assertThat(pending.keySet()).containsExactly(A, A12, B);
    // k2: key 1 + 11 + 2, value 1 + 2, version 8; k1: 14 + 1 + 8.
    assertThat(pending.get(A)).isEqualTo(new HintStore.Pending(2, (14 + 3 + 8) + (14 + 1 + 8)));
    assertThat(store.pendingBytes()).isEqualTo(pending.values().stream().mapToLong(HintStore.Pending::bytes).sum());
  }

  @Test
  void aNewerHintReplacesAnOlderOneAndAnOlderOneNeverWins() {
    open(LIMITS);
    assertThat(store.add(A, bytes("k"), bytes("old"), version(1))).isTrue();
    assertThat(store.add(A, bytes("k"), bytes("newer"), version(2))).isTrue();
    assertThat(store.add(A, bytes("k"), bytes("older"), version(0))).as("covered by the newer hint").isTrue();
    assertThat(all(A)).containsExactly(hint(A, "k", "newer", version(2)));
    assertThat(store.add(A, bytes("k"), null, version(3))).isTrue();
    assertThat(all(A)).containsExactly(hint(A, "k", null, version(3)));
    assertThat(store.pendingByTarget().get(A)).isEqualTo(new HintStore.Pending(1, 13 + 1 + 8));
    assertThat(store.pendingBytes()).isEqualTo(13 + 1 + 8);
  }

  @Test
  void onEqualVersionsATombstoneWinsAsInTheDataStore() {
    open(LIMITS);
    store.add(A, bytes("k"), bytes("v"), version(1));
    store.add(A, bytes("k"), null, version(1));
    store.add(A, bytes("k"), bytes("w"), version(1));
    assertThat(all(A)).containsExactly(hint(A, "k", null, version(1)));
  }

  @Test
  void removeTakesExactlyTheDeliveredHint() {
    open(LIMITS);
    store.add(A, bytes("k"), bytes("v1"), version(1));
    Hint delivered = all(A).getFirst();
    store.add(A, bytes("k"), bytes("v2"), version(2));

    assertThat(store.remove(delivered)).as("a newer hint came meanwhile").isFalse();
    assertThat(all(A)).containsExactly(hint(A, "k", "v2", version(2)));
    assertThat(store.remove(hint(A, "k", "v3", version(2)))).as("same version, other value").isFalse();
    assertThat(store.remove(hint(A, "k", "v2", version(2)))).isTrue();
    assertThat(all(A)).isEmpty();
    assertThat(store.pendingHints()).isZero();
    assertThat(store.pendingBytes()).isZero();
    assertThat(store.remove(hint(A, "k", "v2", version(2)))).as("already removed").isFalse();

    assertThat(store.add(A, bytes("k"), bytes("v1"), version(1))).as("older than a delivered hint: nothing to do").isTrue();
    assertThat(all(A)).isEmpty();
    assertThat(store.add(A, bytes("k"), bytes("v4"), version(4))).isTrue();
    assertThat(all(A)).containsExactly(hint(A, "k", "v4", version(4)));
  }

  @Test
  void hintsSurviveCloseAndReopenWithTheirCounts() {
    open(LIMITS);
    store.add(A, bytes("k1"), bytes("v1"), version(1));
    store.add(A, bytes("k2"), null, version(2));
    store.add(B, bytes("k3"), bytes("v3"), version(3));
    store.remove(hint(A, "k1", "v1", version(1)));
    long bytesBefore = store.pendingBytes();
    Map<NodeAddress, HintStore.Pending> pendingBefore = store.pendingByTarget();

    open(LIMITS);

    assertThat(all(A)).containsExactly(hint(A, "k2", null, version(2)));
    assertThat(all(B)).containsExactly(hint(B, "k3", "v3", version(3)));
    assertThat(store.pendingBytes()).isEqualTo(bytesBefore);
    assertThat(store.pendingByTarget()).isEqualTo(pendingBefore);
    assertThat(store.oldestVersion()).isEqualTo(version(2));
  }

  @Test
  void aFullStoreRefusesHintsUntilRoomIsMade() {
    // Each hint: key 1 + 11 + 2, value 1 + 100, version 8 = 123 bytes; room for 4.
    open(new HintLimits(500, 60_000, 1_000));
    byte[] value = new byte[100];
    for (int i = 0; i < 4; i++) assertThat(store.add(A, bytes("k" + i), value, version(i))).isTrue();
    assertThat(store.add(A, bytes("k4"), value, version(4))).isFalse();
    assertThat(store.refusedFull()).isEqualTo(1);
    assertThat(store.add(A, bytes("k0"), new byte[101], version(5))).as("replacing k0 grows by 1 byte").isTrue();
    assertThat(store.add(A, bytes("k1"), new byte[130], version(6))).as("would pass 500").isFalse();
    assertThat(store.pendingBytes()).isEqualTo(4 * 123 + 1);

    assertThat(store.remove(all(A).get(1))).isTrue();
    assertThat(store.add(A, bytes("k4"), value, version(4))).isTrue();
    assertThat(store.refusedFull()).isEqualTo(2);
    assertThat(store.pendingHints()).isEqualTo(4);
  }

  @Test
  void aWriteOlderThanTheAgeLimitIsRefused() {
    open(LIMITS);
    assertThat(store.add(A, bytes("k"), bytes("v"), version(-60_001))).isFalse();
    assertThat(store.add(A, bytes("k"), bytes("v"), version(-60_000))).isTrue();
    assertThat(store.refusedTooOld()).isEqualTo(1);
    assertThat(all(A)).hasSize(1);
  }

  @Test
  void removeExpiredTakesOnlyHintsPastTheLimit() {
    open(LIMITS);
    store.add(A, bytes("old"), bytes("v"), version(0));
    store.add(B, bytes("young"), bytes("v"), version(30_000));
    clock.set(NOW + 60_001);

    List<Hint> removed = store.removeExpired(clock.get(), LIMITS.maxAgeMillis(), () -> false);

    assertThat(removed).containsExactly(hint(A, "old", "v", version(0)));
    assertThat(all(A)).isEmpty();
    assertThat(all(B)).hasSize(1);
    assertThat(store.oldestVersion()).isEqualTo(version(30_000));
    assertThat(store.pendingByTarget()).containsOnlyKeys(B);
  }

  @Test
  void keysAndValuesNoHintCanCarryAreRefusedWithTheReason() {
    open(LIMITS);
    assertThatThrownBy(() -> store.add(A, new byte[0], bytes("v"), version(0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
    assertThatThrownBy(() -> store.add(A, new byte[HintFormat.MAX_ORIGINAL_KEY_BYTES + 1], bytes("v"), version(0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
    assertThat(store.add(A, new byte[HintFormat.MAX_ORIGINAL_KEY_BYTES], bytes("v"), version(0))).isTrue();
  }

  @Test
  void aFreshStoreIsEmpty() {
    open(LIMITS);
    assertThat(store.pendingHints()).isZero();
    assertThat(store.pendingByTarget()).isEmpty();
    assertThat(store.oldestVersion()).isEqualTo(Long.MAX_VALUE);
    assertThat(store.targets()).isEqualTo(new ArrayList<NodeAddress>());
  }
}
