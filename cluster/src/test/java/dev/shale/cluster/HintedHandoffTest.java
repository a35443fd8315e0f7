package dev.shale.cluster;

import static dev.shale.cluster.HintStoreTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shale.storage.Env;
import dev.shale.storage.SyncMode;
import dev.shale.storage.Versions;
import dev.shale.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class HintedHandoffTest {
  static final NodeAddress A = new NodeAddress("127.0.0.1", 7001);
  static final NodeAddress B = new NodeAddress("127.0.0.1", 7002);
  static final Duration DEADLINE = Duration.ofSeconds(60);
  static final HintLimits LIMITS = new HintLimits(64L << 20, 3_600_000, 1_000);
  static final HintedHandoff.Timing FAST = new HintedHandoff.Timing(50, 200, 30_000);

  @TempDir Path dir;
  final AtomicLong clock = new AtomicLong(System.currentTimeMillis());
  final List<Hint> received = new CopyOnWriteArrayList<>();
  HintStore store;
  HintedHandoff handoff;

  @AfterEach
  void close() {
    if (handoff != null) handoff.close();
    else if (store != null) store.close();
  }

  HintStore openStore() {
    store = HintStore.open(dir, LIMITS, SyncMode.INTERVAL, Env.real().withWallClock(clock::get));
    return store;
  }

  HintedHandoff start(HintSender sender, HintLimits limits, HintedHandoff.Timing timing) {
    handoff = new HintedHandoff(store, sender, limits, timing);
    handoff.start();
    return handoff;
  }

  /** A replica that stores every hint. */
  HintSender storing() {
    return hint -> {
      received.add(hint);
      return CompletableFuture.completedFuture(true);
    };
  }

  long version(int logical) {
    return Versions.of(clock.get(), logical);
  }

  void addHints(NodeAddress target, int count) {
    for (int i = 0; i < count; i++) assertThat(store.add(target, bytes(String.format("k%05d", i)), bytes("v" + i), version(i))).isTrue();
  }

  long receivedBy(NodeAddress target) {
    return received.stream().filter(h -> h.target().equals(target)).count();
  }

  @Test
  void hintsAreDeliveredInKeyOrderAndRemoved() {
    openStore();
    addHints(A, 100);
    store.add(A, bytes("gone"), null, version(200));
    start(storing(), LIMITS, FAST);

    Await.until("101 hints delivered", DEADLINE, () -> handoff.delivered() == 101 && store.pendingHints() == 0);
    assertThat(received).hasSize(101);
    assertThat(received.getFirst().key()).isEqualTo(bytes("gone"));
    assertThat(received.getFirst().isTombstone()).isTrue();
    assertThat(received.get(1)).isEqualTo(new Hint(A, bytes("k00000"), bytes("v0"), version(0)));
    assertThat(store.pendingBytes()).isZero();
    assertThat(store.read(A, null, 10, Long.MAX_VALUE)).isEmpty();
    assertThat(handoff.failedAttempts()).isZero();
  }

  @Test
  void aHintAddedWhileRunningIsDelivered() {
    openStore();
    start(storing(), LIMITS, FAST);
    store.add(B, bytes("late"), bytes("v"), version(0));
    Await.until("the late hint delivered", DEADLINE, () -> handoff.delivered() == 1 && store.pendingHints() == 0);
    assertThat(received).containsExactly(new Hint(B, bytes("late"), bytes("v"), version(0)));
  }

  @Test
  void aHintTheReplicaRefusesForGoodIsDroppedAndCountedNotKept() {
    openStore();
    addHints(A, 3);
    store.add(B, bytes("fine"), bytes("v"), version(0));
    start(hint -> {
      received.add(hint);
      if (hint.target().equals(B)) return CompletableFuture.completedFuture(true);
      // A's answer to a version beyond the version-skew bound (docs/design.md, "Clock offsets").
      return CompletableFuture.failedFuture(HintNotDelivered.never("A failed (code 5): the record's version is 120000 ms ahead"));
    }, LIMITS, FAST);

    Await.until("A's three hints dropped", DEADLINE, () -> handoff.droppedTooFarAhead() == 3 && store.pendingHints() == 0);
    assertThat(receivedBy(A)).as("each tried once, none kept for another try").isEqualTo(3);
    assertThat(handoff.failedAttempts()).as("a refusal for good is no failure to back off from").isZero();
    assertThat(handoff.delivered()).isEqualTo(1);
  }

  @Test
  void aDeliveryThatReturnsFalseKeepsTheHint() {
    openStore();
    addHints(A, 3);
    AtomicBoolean up = new AtomicBoolean(false);
    start(hint -> {
      received.add(hint);
      return CompletableFuture.completedFuture(up.get());
    }, LIMITS, FAST);

    Await.until("three failed attempts", DEADLINE, () -> handoff.failedAttempts() >= 3);
    assertThat(store.pendingHints()).isEqualTo(3);
    assertThat(handoff.delivered()).isZero();

    up.set(true);
    Await.until("hints delivered once the replica takes them", DEADLINE, () -> store.pendingHints() == 0);
    assertThat(handoff.delivered()).isEqualTo(3);
  }

  @Test
  void aFailingTargetBacksOffAndDoesNotHoldUpAnother() {
    openStore();
    addHints(A, 50);
    addHints(B, 200);
    long started = System.nanoTime();
    // A fails every way a sender can: exceptionally, by throwing, with an incomplete-then-failed stage.
    AtomicLong attemptsToA = new AtomicLong();
    start(hint -> {
      if (hint.target().equals(A)) {
        long n = attemptsToA.incrementAndGet();
        if (n % 3 == 0) throw new IllegalStateException("connection refused");
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        if (n % 3 == 1) f.completeExceptionally(new RuntimeException("connection reset"));
        else CompletableFuture.runAsync(() -> f.completeExceptionally(new RuntimeException("timeout")));
        return f;
      }
      received.add(hint);
      return CompletableFuture.completedFuture(true);
    }, LIMITS, new HintedHandoff.Timing(1_000, 10_000, 30_000));

    Await.until("B's hints delivered", DEADLINE, () -> receivedBy(B) == 200 && store.pendingHints(B) == 0);
    double elapsedSeconds = (System.nanoTime() - started) / 1e9;
    assertThat(store.pendingHints(A)).isEqualTo(50);
    // A gets at most a window of deliveries before its first failure comes back, then one probe
    // per back-off (1 s, doubling): never a retry storm, however slow this machine is.
    assertThat(attemptsToA.get()).isLessThanOrEqualTo(HintedHandoff.MAX_IN_FLIGHT_PER_TARGET + (long) elapsedSeconds + 1);
    assertThat(handoff.failedAttempts()).isEqualTo(attemptsToA.get());
  }

  @Test
  void aSignalThatTheReplicaIsUpEndsItsBackOff() {
    openStore();
    addHints(A, 5);
    AtomicBoolean up = new AtomicBoolean(false);
    start(hint -> {
      received.add(hint);
      return CompletableFuture.completedFuture(up.get());
    }, LIMITS, new HintedHandoff.Timing(600_000, 600_000, 30_000));
    Await.until("a failed attempt", DEADLINE, () -> handoff.failedAttempts() >= 1);

    up.set(true);
    handoff.onReplicaUp(A);

    Await.until("hints delivered long before the 10-minute back-off ends", DEADLINE, () -> store.pendingHints() == 0);
    assertThat(handoff.delivered()).isEqualTo(5);
  }

  @Test
  void deliveriesRespectTheRate() {
    openStore();
    addHints(A, 300);
    addHints(B, 200);
    int perSecond = 50;
    long started = System.nanoTime();
    start(storing(), new HintLimits(LIMITS.maxBytes(), LIMITS.maxAgeMillis(), perSecond), FAST);

    // The bucket starts with a burst of perSecond / 10 and refills at perSecond: whenever we look,
    // no more than that can have been delivered (a slow machine only delivers fewer).
    double burst = perSecond / 10.0;
    while (handoff.delivered() < 100) {
      long deliveredSoFar = handoff.delivered();
      double elapsedSeconds = (System.nanoTime() - started) / 1e9;
      assertThat((double) deliveredSoFar).isLessThanOrEqualTo(burst + perSecond * elapsedSeconds + 1);
      assertThat(elapsedSeconds).as("100 deliveries within the deadline").isLessThan(DEADLINE.toSeconds());
      java.util.concurrent.locks.LockSupport.parkNanos(2_000_000); // sample every ~2 ms; the loop's deadline is above
    }
    assertThat(receivedBy(A)).as("both targets served").isPositive();
    assertThat(receivedBy(B)).isPositive();
  }

  @Test
  void largeValuesCountOncePerStartedUnit() {
    assertThat(HintedHandoff.deliveryUnits(new Hint(A, bytes("k"), null, 0))).isEqualTo(1);
    assertThat(HintedHandoff.deliveryUnits(new Hint(A, bytes("k"), new byte[HintLimits.DELIVERY_UNIT_BYTES], 0))).isEqualTo(1);
    assertThat(HintedHandoff.deliveryUnits(new Hint(A, bytes("k"), new byte[HintLimits.DELIVERY_UNIT_BYTES + 1], 0))).isEqualTo(2);
  }

  @Test
  @SuppressWarnings("CollectionUndefinedEquality") // removeAll of the very futures copied: identity is meant
  void inFlightDeliveriesAreBounded() {
    openStore();
    addHints(A, 40);
    addHints(B, 40);
    List<CompletableFuture<Boolean>> pending = new CopyOnWriteArrayList<>();
    ConcurrentHashMap<NodeAddress, AtomicLong> perTarget = new ConcurrentHashMap<>();
    start(hint -> {
      received.add(hint);
      perTarget.computeIfAbsent(hint.target(), t -> new AtomicLong()).incrementAndGet();
      CompletableFuture<Boolean> f = new CompletableFuture<>();
      pending.add(f);
      return f;
    }, LIMITS, FAST);

    Await.until("both targets' windows full", DEADLINE, () -> pending.size() == HintedHandoff.MAX_IN_FLIGHT);
    assertThat(perTarget.get(A).get()).isEqualTo(HintedHandoff.MAX_IN_FLIGHT_PER_TARGET);
    assertThat(perTarget.get(B).get()).isEqualTo(HintedHandoff.MAX_IN_FLIGHT_PER_TARGET);
    assertThat(received).doesNotHaveDuplicates();

    for (int round = 0; round < 200 && store.pendingHints() > 0; round++) {
      List<CompletableFuture<Boolean>> now = new ArrayList<>(pending);
      pending.removeAll(now);
      now.forEach(f -> f.complete(true));
      Await.until("the next window or the end", DEADLINE, () -> store.pendingHints() == 0 || !pending.isEmpty());
    }
    assertThat(store.pendingHints()).isZero();
    assertThat(received).hasSize(80).doesNotHaveDuplicates();
  }

  @Test
  void aNewerHintAddedDuringADeliverySurvivesItsRemoval() {
    openStore();
    store.add(A, bytes("k"), bytes("v1"), version(1));
    start(hint -> {
      received.add(hint);
      if (received.size() == 1) store.add(A, bytes("k"), bytes("v2"), version(2));
      return CompletableFuture.completedFuture(true);
    }, LIMITS, FAST);

    Await.until("both versions delivered", DEADLINE, () -> handoff.delivered() == 2 && store.pendingHints() == 0);
    assertThat(received).containsExactly(
        new Hint(A, bytes("k"), bytes("v1"), version(1)), new Hint(A, bytes("k"), bytes("v2"), version(2)));
  }

  @Test
  void hintsOlderThanTheLimitAreDroppedNotDelivered() {
    openStore();
    addHints(A, 10);
    clock.addAndGet(LIMITS.maxAgeMillis() + 1);
    start(storing(), LIMITS, FAST);

    Await.until("ten hints dropped", DEADLINE, () -> handoff.droppedTooOld() == 10);
    assertThat(received).isEmpty();
    assertThat(store.pendingHints()).isZero();
    assertThat(store.pendingBytes()).isZero();
  }

  @Test
  void hintsOfATargetThatStaysDownExpireAndFreeTheirRoom() {
    openStore();
    addHints(A, 10);
    start(hint -> CompletableFuture.completedFuture(false), LIMITS, new HintedHandoff.Timing(600_000, 600_000, 30_000));
    Await.until("a failed attempt", DEADLINE, () -> handoff.failedAttempts() >= 1);

    clock.addAndGet(LIMITS.maxAgeMillis() + 1);
    store.add(B, bytes("young"), bytes("v"), version(0)); // wakes the thread; B's hint is fresh

    Await.until("A's hints dropped", DEADLINE, () -> handoff.droppedTooOld() == 10 && store.pendingHints(A) == 0);
    assertThat(store.pendingByTarget()).doesNotContainKey(A);
  }

  @Test
  void hintsSurviveARestartAndAreDeliveredAfterIt() {
    openStore();
    addHints(A, 20);
    start(hint -> new CompletableFuture<>(), LIMITS, FAST); // a replica that never answers
    Await.until("deliveries in flight", DEADLINE, () -> store.pendingHints() == 20);
    handoff.close(); // returns although deliveries are in flight, and closes the store
    handoff = null;

    openStore();
    assertThat(store.pendingHints()).isEqualTo(20);
    start(storing(), LIMITS, FAST);
    Await.until("20 hints delivered after the restart", DEADLINE, () -> store.pendingHints() == 0);
    assertThat(received).hasSize(20);
  }

  @Test
  void aHintThatExpiresWhileQueuedIsNeverSent() {
    openStore();
    addHints(A, 20);
    List<CompletableFuture<Boolean>> pending = new CopyOnWriteArrayList<>();
    start(hint -> {
      received.add(hint);
      CompletableFuture<Boolean> f = new CompletableFuture<>();
      pending.add(f);
      return f;
    }, LIMITS, FAST);
    // One batch holds all 20; a window of 8 goes out, 12 wait in the batch.
    Await.until("a window in flight", DEADLINE, () -> pending.size() == HintedHandoff.MAX_IN_FLIGHT_PER_TARGET);

    clock.addAndGet(LIMITS.maxAgeMillis() + 1);
    pending.forEach(f -> f.complete(true));

    Await.until("the rest dropped", DEADLINE, () -> store.pendingHints() == 0 && handoff.delivered() == 8);
    assertThat(received).hasSize(HintedHandoff.MAX_IN_FLIGHT_PER_TARGET);
    // The 12 queued ones at least; a sweep may also have removed some in flight before their
    // answers came back (those count as both delivered and dropped).
    assertThat(handoff.droppedTooOld()).isBetween(20L - HintedHandoff.MAX_IN_FLIGHT_PER_TARGET, 20L);
  }

  @Test
  void concurrentWritersAndDeliveryLeaveTheNewestVersionOfEveryKeyAtItsTarget() throws Exception {
    openStore();
    long seed = dev.shale.testkit.TestSeed.forTest("concurrentWritersAndDelivery");
    ConcurrentHashMap<String, Hint> replica = new ConcurrentHashMap<>(); // what each target stored
    java.util.Random failures = new java.util.Random(seed);
    start(hint -> {
      boolean ok;
      synchronized (failures) {
        ok = failures.nextInt(4) != 0;
      }
      // A replica keeps the newest version of each key, whatever order deliveries come in.
      if (ok) replica.merge(hint.target().id() + "/" + new String(hint.key(), StandardCharsets.UTF_8), hint, (a, b) -> a.version() >= b.version() ? a : b);
      return CompletableFuture.completedFuture(ok);
    }, LIMITS, FAST);

    ConcurrentHashMap<String, Long> newest = new ConcurrentHashMap<>();
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      java.util.Random random = new java.util.Random(seed + w);
      writers.add(Thread.ofPlatform().start(() -> {
        for (int i = 0; i < 300; i++) {
          NodeAddress target = random.nextBoolean() ? A : B;
          String key = "k" + random.nextInt(40);
          long v = Versions.of(clock.get(), random.nextInt(60_000));
          byte[] value = random.nextInt(5) == 0 ? null : bytes("v" + v);
          assertThat(store.add(target, bytes(key), value, v)).isTrue();
          newest.merge(target.id() + "/" + key, v, Math::max);
        }
      }));
    }
    for (Thread t : writers) t.join();

    Await.until("every hint delivered", DEADLINE, () -> store.pendingHints() == 0);
    assertThat(store.pendingBytes()).isZero();
    assertThat(replica.keySet()).isEqualTo(newest.keySet());
    newest.forEach((k, v) -> assertThat(replica.get(k).version()).as(k).isEqualTo(v));
  }

  @Test
  void aDeliveryWithoutAnAnswerTimesOutAndIsTriedAgain() {
    openStore();
    addHints(A, 1);
    AtomicLong attempts = new AtomicLong();
    start(hint -> attempts.incrementAndGet() == 1 ? new CompletableFuture<>() : CompletableFuture.completedFuture(true),
        LIMITS, new HintedHandoff.Timing(50, 200, 100));

    Await.until("delivered on the second attempt", DEADLINE, () -> store.pendingHints() == 0);
    assertThat(handoff.failedAttempts()).isEqualTo(1);
    assertThat(attempts.get()).isEqualTo(2);
  }
}
