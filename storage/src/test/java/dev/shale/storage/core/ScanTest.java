package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.await;
import static dev.shale.storage.core.EngineTesting.bytes;
import static dev.shale.storage.core.EngineTesting.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Engine.scan's contract: arguments, tombstones, and the files a scan pins and lets go. */
class ScanTest {
  private static final int VALUE_BYTES = 1_000;

  @TempDir Path dir;

  @Test
  void boundsAreStartInclusiveEndExclusiveAndAnEmptyOrInvertedRangeIsEmpty() {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      for (String k : List.of("a", "b", "c", "d")) engine.put(bytes(k), bytes(k));
      assertThat(keys(engine.scan(bytes("b"), bytes("d"), false))).containsExactly("b", "c");
      assertThat(keys(engine.scan(bytes("b"), null, false))).containsExactly("b", "c", "d");
      assertThat(keys(engine.scan(new byte[0], bytes("b"), false))).containsExactly("a");
      assertThat(keys(engine.scan(bytes("c"), bytes("c"), false))).isEmpty();
      assertThat(keys(engine.scan(bytes("d"), bytes("a"), false))).isEmpty();
      assertThatThrownBy(() -> engine.scan(null, bytes("a"), false))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("start");
    }
  }

  @Test
  void tombstonesComeBackOnlyWhenAskedFor() {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      engine.put(bytes("a"), bytes("1"));
      engine.put(bytes("b"), bytes("2"));
      long deleted = engine.delete(bytes("b"));
      engine.put(bytes("c"), bytes("3"));
      assertThat(keys(engine.scan(new byte[0], null, false))).containsExactly("a", "c");
      List<Entry> all = drain(engine.scan(new byte[0], null, true));
      assertThat(all).hasSize(3);
      assertThat(all.get(1)).isEqualTo(Entry.tombstone(bytes("b"), deleted));
    }
  }

  @Test
  void aHundredThousandTombstonesBetweenTwoLiveKeysAreSkipped() {
    EngineOptions options = options().withMemtableSizeBytes(2 << 20);
    try (LsmEngine engine = LsmEngine.open(dir, options, Hooks.none())) {
      engine.put(bytes("a"), bytes("first"));
      for (int i = 0; i < 100_000; i += 10) engine.put(deadKey(i), bytes("shadowed"));
      for (int i = 0; i < 100_000; i++) engine.delete(deadKey(i));
      engine.put(bytes("z"), bytes("last"));
      await("the tombstones spread over tables", () -> engine.stats().tables() >= 2);

      assertThat(keys(engine.scan(new byte[0], null, false))).containsExactly("a", "z");
      assertThat(keys(engine.scan(deadKey(50_000), null, false))).containsExactly("z");
      assertThat(keys(engine.scan(bytes("a"), bytes("z"), false))).containsExactly("a");
      try (EntryIterator withTombstones = engine.scan(new byte[0], null, true)) {
        long count = 0;
        while (withTombstones.hasNext()) {
          withTombstones.next();
          count++;
        }
        assertThat(count).isEqualTo(100_002);
      }
    }
  }

  @Test
  void anOpenScanPinsItsTablesAcrossFlushesAndCloseReleasesThem() {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      Map<String, Entry> before = new HashMap<>();
      for (int i = 0; i < 300; i++) before.put("in-" + i, put(engine, "in-" + i));
      awaitFlushed(engine, 2);

      ScanIterator scan = (ScanIterator) engine.scan(bytes("in-"), bytes("in."), false);
      List<SharedTable> pinned = scan.view().tables();
      assertThat(pinned).isNotEmpty();
      // Each table: one reference from the engine's current view (the scan's own view is it).
      assertThat(scan.view()).isSameAs(engine.currentView());
      assertReferences(pinned, 1);

      long flushesBefore = engine.stats().flushes();
      for (int i = 0; i < 300; i++) put(engine, "out-" + i);
      await("more flushes", () -> engine.stats().flushes() >= flushesBefore + 3);
      // The engine's newer views list the tables too; the scan's old view still holds them.
      awaitReferences(pinned, 2);

      List<Entry> seen = new ArrayList<>();
      scan.forEachRemaining(seen::add);
      assertThat(seen).hasSize(before.size());
      for (Entry e : seen) assertThat(e).isEqualTo(before.get(new String(e.key(), StandardCharsets.UTF_8)));

      assertThat(scan.view()).as("exhausted: released").isNull();
      awaitReferences(pinned, 1);
      scan.close();
      scan.close();
      // Closing twice releases nothing more (a second release would leave 0 for good); flushes
      // still running may add a replaced view's reference for a moment, hence a wait.
      awaitReferences(pinned, 1);
    }
  }

  @Test
  void closingAScanHalfWayReleasesItsView() {
    try (LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none())) {
      for (int i = 0; i < 300; i++) put(engine, "k-" + i);
      awaitFlushed(engine, 1);
      ScanIterator scan = (ScanIterator) engine.scan(new byte[0], null, false);
      ReadView view = scan.view();
      assertThat(scan.next()).isNotNull();
      for (int i = 0; i < 300; i++) put(engine, "later-" + i);
      await("a newer view", () -> engine.currentView() != view);
      List<SharedTable> pinned = view.tables();
      awaitReferences(pinned, 2);

      scan.close();
      assertThat(scan.hasNext()).isFalse();
      assertThatThrownBy(scan::next).isInstanceOf(NoSuchElementException.class);
      assertThat(view.tryRetain()).as("the old view is gone").isFalse();
      awaitReferences(pinned, 1);
    }
  }

  @Test
  void closingTheEngineLeavesAnOpenScansTablesMappedUntilTheScanLetsGo() {
    LsmEngine engine = LsmEngine.open(dir, options(), Hooks.none());
    for (int i = 0; i < 300; i++) put(engine, "k-" + i);
    awaitFlushed(engine, 1);
    ScanIterator scan = (ScanIterator) engine.scan(new byte[0], null, false);
    List<SharedTable> pinned = scan.view().tables();
    assertThat(scan.next()).isNotNull();

    engine.close();
    pinned.forEach(t -> assertThat(t.references()).as("still mapped for the scan").isEqualTo(1));
    assertThatThrownBy(scan::hasNext).isInstanceOf(StorageException.class).hasMessageContaining("closed");
    pinned.forEach(t -> assertThat(t.references()).as("unmapped").isZero());
    scan.close();
    assertThat(scan.hasNext()).isFalse();
    assertThatThrownBy(() -> engine.scan(new byte[0], null, false))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void aDeepLevelOfManyTablesIsReadTableAfterTableWithinTheRange() {
    EngineOptions manyTables = EngineTesting.smallOptions().withLevelSizes(64 * 1024, 4096);
    java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
    try (LsmEngine engine = LsmEngine.open(dir, manyTables, Hooks.none())) {
      for (int i = 0; i < 3000; i++) {
        String key = String.format("k%05d", (i * 7919) % 3000);
        engine.put(bytes(key), bytes("value-" + key + "-".repeat(60)));
        model.put(key, "value-" + key + "-".repeat(60));
      }
      for (int i = 0; i < 3000; i += 5) {
        engine.delete(bytes(String.format("k%05d", i)));
        model.remove(String.format("k%05d", i));
      }
      engine.compact();
      assertThat(engine.stats().tables()).as("the store spans many tables").isGreaterThan(20);
      for (String[] range : new String[][] {{"", null}, {"k00100", "k00101"}, {"k00999", "k02001"}, {"k02990", null}, {"k01500", "k01500"}}) {
        byte[] start = bytes(range[0]);
        byte[] end = range[1] == null ? null : bytes(range[1]);
        var expected = range[1] == null ? model.tailMap(range[0], true) : model.subMap(range[0], true, range[1], false);
        if (range[1] != null && range[0].compareTo(range[1]) >= 0) expected = new java.util.TreeMap<>();
        List<Entry> scanned = drain(engine.scan(start, end, false));
        assertThat(scanned.stream().map(e -> new String(e.key(), StandardCharsets.UTF_8)).toList()).as("[%s, %s)", range[0], range[1])
            .isEqualTo(List.copyOf(expected.keySet()));
        for (Entry e : scanned) assertThat(new String(e.value(), StandardCharsets.UTF_8)).isEqualTo(model.get(new String(e.key(), StandardCharsets.UTF_8)));
      }
    }
  }

  /**
   * Waits until {@code tables} tables exist, no frozen memtable waits, and the last flush has let
   * go of the view it replaced (publishing a view and releasing the old one are two steps, so a
   * table may briefly count a reference from both): from then on the view stays put.
   */
  private static void awaitFlushed(LsmEngine engine, int tables) {
    await(tables + " tables and no flush pending",
        () -> engine.stats().tables() >= tables && engine.stats().immutableMemtables() == 0
            && engine.currentView().tables().stream().allMatch(t -> t.references() == 1));
  }

  /**
   * Waits for each table to count {@code references}: with writes still being flushed, a table may
   * for a moment also count the reference of a view being replaced.
   */
  private static void awaitReferences(List<SharedTable> tables, int references) {
    await("each table referenced " + references + " times",
        () -> tables.stream().allMatch(t -> t.references() == references));
  }

  private static void assertReferences(List<SharedTable> tables, int references) {
    tables.forEach(t -> assertThat(t.references()).isEqualTo(references));
  }

  private static Entry put(LsmEngine engine, String key) {
    byte[] value = new byte[VALUE_BYTES];
    value[0] = (byte) key.hashCode();
    return new Entry(bytes(key), engine.put(bytes(key), value), value);
  }

  private static byte[] deadKey(int i) {
    return bytes(String.format("m-%06d", i));
  }

  private static List<String> keys(EntryIterator scan) {
    return drain(scan).stream().map(e -> new String(e.key(), StandardCharsets.UTF_8)).toList();
  }

  // No compaction: these tests count the references flushes and scans hold on each table.
  private static EngineOptions options() {
    return EngineTesting.smallOptions().withL0Triggers(100, 100, 100);
  }
}
