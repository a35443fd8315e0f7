package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Env;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.Versions;
import dev.shale.storage.memtable.Memtable;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expiring values (docs/design.md, "Expiring values"): an expired value reads as a tombstone of
 * its version, wherever it lies (memtable, log, table), and compaction drops it only as it would
 * drop that tombstone. The wall clock is injected: nothing here waits for time to pass.
 */
class ExpiryTest {
  private static final long GRACE_MILLIS = 60_000;
  private static final long TTL_MILLIS = 1_000;

  @TempDir Path dir;

  private final AtomicLong wallMillis = new AtomicLong(1_750_000_000_000L);

  @Test
  void anExpiredValueReadsAsATombstoneOfItsVersionAndScansSkipIt() {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      engine.put(bytes("a"), bytes("stays"));
      long expiresAt = wallMillis.get() + TTL_MILLIS;
      long version = engine.put(bytes("b"), bytes("goes"), expiresAt);
      engine.put(bytes("c"), bytes("stays too"));

      Entry live = engine.get(bytes("b"));
      assertThat(live).isEqualTo(new Entry(bytes("b"), version, bytes("goes"), expiresAt));
      assertThat(keys(engine.scan(new byte[0], null, false))).containsExactly("a", "b", "c");
      try (ReadRecord read = engine.read(bytes("b"))) {
        assertThat(read.expiresAtMillis()).isEqualTo(expiresAt);
      }

      wallMillis.set(expiresAt - 1);
      assertThat(engine.get(bytes("b"))).as("one ms before its expiry").isEqualTo(live);

      wallMillis.set(expiresAt);
      assertThat(engine.get(bytes("b"))).isEqualTo(Entry.tombstone(bytes("b"), version));
      try (ReadRecord read = engine.read(bytes("b"))) {
        assertThat(read).isEqualTo(new ReadRecord.Copied(Entry.tombstone(bytes("b"), version)));
      }
      assertThat(keys(engine.scan(new byte[0], null, false))).containsExactly("a", "c");
      try (EntryIterator withTombstones = engine.scan(new byte[0], null, true)) {
        List<Entry> all = EngineTesting.drain(withTombstones);
        assertThat(all).hasSize(3);
        assertThat(all.get(1)).isEqualTo(Entry.tombstone(bytes("b"), version));
      }
    }
  }

  @Test
  void theExpiryIsKeptInTheLogTablesAndLentValuesAndAfterARestart() {
    long expiresAt = wallMillis.get() + TTL_MILLIS;
    byte[] large = new byte[200 << 10]; // lent by read(), not copied
    Arrays.fill(large, (byte) 7);
    long tabled;
    long logged;
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      tabled = engine.put(bytes("tabled"), bytes("in a table"), expiresAt);
      engine.put(bytes("large"), large, expiresAt);
      engine.compact(); // flushes the memtable: both now lie in a table
      logged = engine.put(bytes("logged"), bytes("in the log"), expiresAt + 1);
      try (ReadRecord read = engine.read(bytes("large"))) {
        assertThat(read).isInstanceOf(ReadRecord.Lent.class);
        assertThat(read.expiresAtMillis()).isEqualTo(expiresAt);
        assertThat(((ReadRecord.Lent) read).value().byteSize()).isEqualTo(large.length);
      }
    }
    try (LsmEngine reopened = LsmEngine.open(dir, options(), Hooks.none())) {
      assertThat(reopened.get(bytes("tabled"))).isEqualTo(new Entry(bytes("tabled"), tabled, bytes("in a table"), expiresAt));
      assertThat(reopened.get(bytes("logged")))
          .as("replayed from the log")
          .isEqualTo(new Entry(bytes("logged"), logged, bytes("in the log"), expiresAt + 1));
      assertThat(reopened.get(bytes("large")).value()).isEqualTo(large);

      reopened.compact(); // the replayed log into a table, merged with the others
      assertThat(reopened.get(bytes("logged")).expiresAtMillis()).isEqualTo(expiresAt + 1);

      wallMillis.set(expiresAt);
      assertThat(reopened.get(bytes("tabled"))).matches(Entry::isTombstone);
      assertThat(reopened.get(bytes("large"))).matches(Entry::isTombstone);
      assertThat(reopened.get(bytes("logged"))).as("expires 1 ms later").matches(e -> !e.isTombstone());
      try (ReadRecord read = reopened.read(bytes("large"))) {
        assertThat(read).isInstanceOf(ReadRecord.Copied.class);
        assertThat(((ReadRecord.Copied) read).entry().isTombstone()).isTrue();
      }
    }
  }

  @Test
  void compactionKeepsAnExpiredValueThroughTheGracePeriodSoNoOlderValueComesBack() {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      long oldVersion = Versions.of(wallMillis.get() - 10, 0);
      long expiresAt = wallMillis.get() + TTL_MILLIS;
      long version = engine.put(bytes("k"), bytes("expiring"), expiresAt);
      wallMillis.addAndGet(2 * TTL_MILLIS); // expired, within the grace period
      engine.compact();
      assertThat(engine.stats().tables()).as("the expired value is kept during grace").isEqualTo(1);

      // Replication delivers an older write late: the expired value hides it, as a tombstone would.
      engine.write(bytes("k"), bytes("older"), oldVersion);
      assertThat(engine.get(bytes("k"))).isEqualTo(Entry.tombstone(bytes("k"), version));
      engine.compact();
      assertThat(engine.get(bytes("k"))).isEqualTo(Entry.tombstone(bytes("k"), version));

      wallMillis.addAndGet(GRACE_MILLIS);
      engine.compact();
      assertThat(engine.get(bytes("k"))).as("dropped with the older value it hid").isNull();
      assertThat(engine.stats().tables()).isZero();
    }
  }

  @Test
  void anExpiredValueIsDroppedByTheTombstoneRulesOnly() {
    long now = wallMillis.get();
    byte[] key = bytes("k");
    long past = Versions.of(now - GRACE_MILLIS - 1, 0);
    Entry expired = new Entry(key, past, bytes("v"), now - 5);
    Memtable older = new Memtable();
    older.add(new Entry(key, Versions.of(now - GRACE_MILLIS - 5, 0), bytes("old")));

    assertThat(purge(now, new Memtable()).drop(expired)).as("expired, past grace, nothing outside").isTrue();
    assertThat(purge(now, older).drop(expired)).as("an older value outside the compaction").isFalse();
    Entry live = new Entry(key, past, bytes("v"), now + 1);
    assertThat(purge(now, new Memtable()).drop(live)).as("not yet expired").isFalse();
    Entry young = new Entry(key, Versions.of(now - GRACE_MILLIS + 1, 0), bytes("v"), now - 5);
    assertThat(purge(now, new Memtable()).drop(young)).as("its version within grace").isFalse();
  }

  @Test
  void aRecordOfEqualVersionAndBytesWithTheLaterExpiryWinsEverywhere() {
    byte[] key = bytes("k");
    Entry never = new Entry(key, 5, bytes("v"));
    Entry early = new Entry(key, 5, bytes("v"), 100);
    Entry late = new Entry(key, 5, bytes("v"), 200);
    assertThat(Entry.newer(early, late)).isSameAs(late);
    assertThat(Entry.newer(late, early)).isSameAs(late);
    assertThat(Entry.newer(late, never)).isSameAs(never);
    assertThat(Entry.newer(Entry.tombstone(key, 5), never)).matches(Entry::isTombstone);

    Memtable memtable = new Memtable();
    memtable.add(late);
    memtable.add(early);
    assertThat(memtable.get(key)).isEqualTo(late);
    memtable.add(never);
    assertThat(memtable.get(key)).isEqualTo(never);
  }

  @Test
  void aTombstoneWithAnExpiryOrANegativeExpiryIsRefused() {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      assertThatThrownBy(() -> engine.write(bytes("k"), null, 5, 10)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> engine.put(bytes("k"), bytes("v"), -1)).isInstanceOf(IllegalArgumentException.class);
      assertThat(engine.get(bytes("k"))).isNull();
    }
  }

  private static TombstonePurge purge(long now, Memtable memtable) {
    ReadView view = new ReadView(memtable, List.of(), Levels.empty());
    return new TombstonePurge(now, GRACE_MILLIS, view, List.of());
  }

  private static List<String> keys(EntryIterator scan) {
    try (scan) {
      return EngineTesting.drain(scan).stream().map(e -> new String(e.key(), java.nio.charset.StandardCharsets.UTF_8)).toList();
    }
  }

  private EngineOptions options() {
    return EngineTesting.smallOptions()
        .withEnv(Env.real().withWallClock(wallMillis::get))
        .withTombstoneGraceMillis(GRACE_MILLIS);
  }
}
