package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.ReadRecord;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Engine#read}: a large value lent in place, from wherever it lies, equal to what
 * {@link Engine#get} copies; the lease keeps the memory its value lies in (a memtable's, or its
 * table block's) until it is closed, and nothing else.
 */
class ValueLeaseTest {
  private static final int LARGE = 1 << 20;

  @TempDir Path dir;

  @Test
  void aValueInTheActiveMemtableIsLentWithTheBytesGetReturns() {
    try (LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults(), Hooks.none())) {
      byte[] value = value(1, LARGE);
      long version = engine.put(bytes("k"), value);

      try (ReadRecord read = engine.read(bytes("k"))) {
        assertLent(read, engine.get(bytes("k")));
        assertThat(read.version()).isEqualTo(version);
        assertThat(engine.stats().valueLeases()).isEqualTo(1);
      }
      assertThat(engine.stats().valueLeases()).isZero();
    }
  }

  @Test
  void aValueInAFrozenMemtableIsLentWithTheBytesGetReturns() {
    FlushGate gate = new FlushGate();
    gate.hold(); // the frozen memtable stays unflushed
    try (LsmEngine engine = LsmEngine.open(dir, EngineTesting.smallOptions(), Hooks.withGate(gate))) {
      engine.put(bytes("k"), value(2, LARGE)); // fills the 64 KiB memtable
      engine.put(bytes("next"), new byte[] {1}); // freezes it
      assertThat(engine.stats().immutableMemtables()).isEqualTo(1);
      assertThat(engine.currentView().active().get(bytes("k"))).as("not in the active memtable").isNull();

      try (ReadRecord read = engine.read(bytes("k"))) {
        assertLent(read, engine.get(bytes("k")));
      }
      gate.release();
    }
  }

  @Test
  void aValueInATableIsLentWithTheBytesGetReturns() {
    try (LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults(), Hooks.none())) {
      engine.put(bytes("k"), value(3, LARGE));
      engine.compact();
      assertThat(engine.stats().tables()).isEqualTo(1);
      assertThat(engine.stats().memtableBytes()).isZero();

      try (ReadRecord read = engine.read(bytes("k"))) {
        assertLent(read, engine.get(bytes("k")));
      }
    }
  }

  @Test
  void aLeaseKeepsAMemtableValueReadableAcrossItsFlushAndFreesItAtClose() {
    try (LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults(), Hooks.none())) {
      byte[] value = value(4, LARGE);
      engine.put(bytes("k"), value);
      ReadRecord.Lent lent = (ReadRecord.Lent) engine.read(bytes("k"));
      MemorySegment view = lent.value();

      engine.compact(); // the memtable is flushed, then the engine lets it go
      assertThat(engine.currentView().active().get(bytes("k"))).isNull();
      assertThat(view.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(value);

      lent.close();
      assertThatThrownBy(() -> view.get(ValueLayout.JAVA_BYTE, 0))
          .as("the memtable's memory is freed once the lease is closed")
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void aLeaseHoldsTheBlockOfItsValueNotTheTableACompactionReplaces() {
    // No block cache: every block the engine holds is one a read or a lease holds.
    try (LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults().withBlockCacheBytes(0), Hooks.none())) {
      byte[] value = value(5, LARGE);
      engine.put(bytes("k"), value);
      engine.compact();
      List<String> before = tableFiles();
      assertThat(before).hasSize(1);
      ReadRecord.Lent lent = (ReadRecord.Lent) engine.read(bytes("k"));
      MemorySegment view = lent.value();
      assertThat(engine.stats().blockMemoryBytes()).as("the lent value's block").isGreaterThanOrEqualTo(LARGE);

      engine.put(bytes("k"), value(6, LARGE)); // a flush, then a compaction that replaces the table
      engine.compact();
      assertThat(tableFiles()).as("the replaced table is gone at once: the lease holds its block, not the file")
          .hasSize(1).doesNotContainAnyElementsOf(before);
      assertThat(view.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(value);
      assertThat(engine.get(bytes("k")).value()).isEqualTo(value(6, LARGE));

      lent.close();
      assertThat(engine.stats().blockMemoryBytes()).as("the block, freed once the lease is closed").isZero();
      assertThat(engine.stats().valueLeases()).isZero();
    }
  }

  @Test
  void aLeasePinsOnlyTheSourceOfItsValueNotTheRestOfTheView() {
    try (LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults(), Hooks.none())) {
      engine.put(bytes("other"), value(1, 100));
      engine.compact();
      List<String> before = tableFiles();
      assertThat(before).hasSize(1);
      byte[] value = value(2, LARGE);
      engine.put(bytes("k"), value);
      ReadRecord.Lent lent = (ReadRecord.Lent) engine.read(bytes("k")); // from the active memtable

      engine.put(bytes("other"), value(3, 100));
      engine.compact(); // the memtable flushed, and the table holding "other" replaced
      assertThat(tableFiles()).as("the replaced table held nothing lent: gone while the lease is open")
          .doesNotContainAnyElementsOf(before);
      assertThat(lent.value().toArray(ValueLayout.JAVA_BYTE)).as("the memtable it lies in is kept").isEqualTo(value);
      lent.close();
      assertThat(engine.stats().valueLeases()).isZero();
    }
  }

  @Test
  void closingALeaseTwiceEndsItOnce() {
    try (LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults(), Hooks.none())) {
      engine.put(bytes("k"), value(7, LARGE));
      ReadRecord read = engine.read(bytes("k"));
      ReadRecord other = engine.read(bytes("k"));
      assertThat(engine.stats().valueLeases()).isEqualTo(2);

      read.close();
      read.close();

      assertThat(engine.stats().valueLeases()).isEqualTo(1);
      assertThat(((ReadRecord.Lent) other).value().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(value(7, LARGE));
      other.close();
      assertThat(engine.stats().valueLeases()).isZero();
      assertThat(engine.get(bytes("k")).value()).as("the view was not released too often").isEqualTo(value(7, LARGE));
    }
  }

  @Test
  void aLeaseOutlivesTheEngine() {
    LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults(), Hooks.none());
    engine.put(bytes("k"), value(8, LARGE));
    engine.compact();
    ReadRecord.Lent lent = (ReadRecord.Lent) engine.read(bytes("k"));

    engine.close();

    assertThat(lent.value().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(value(8, LARGE));
    lent.close();
  }

  @Test
  void valuesBelowTheThresholdAndTombstonesComeBackCopied() {
    try (LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults(), Hooks.none())) {
      engine.put(bytes("small"), value(9, Engine.LEND_MIN_VALUE_BYTES - 1));
      engine.put(bytes("threshold"), value(10, Engine.LEND_MIN_VALUE_BYTES));
      engine.delete(bytes("gone"));
      for (boolean inTable : new boolean[] {false, true}) {
        if (inTable) engine.compact();
        assertThat(engine.read(bytes("small"))).as("in a table: %s", inTable)
            .isEqualTo(new ReadRecord.Copied(engine.get(bytes("small"))));
        assertThat(engine.read(bytes("gone"))).isEqualTo(new ReadRecord.Copied(engine.get(bytes("gone"))));
        assertThat(engine.read(bytes("missing"))).isNull();
        try (ReadRecord read = engine.read(bytes("threshold"))) {
          assertLent(read, engine.get(bytes("threshold")));
        }
      }
      assertThat(engine.stats().valueLeases()).isZero();
    }
  }

  /**
   * A record written later with an older version (replication's write()) loses to a newer one
   * in an older source; equal versions: a tombstone, then the greater bytes. read() lends the
   * winner get() copies, never the first record found.
   */
  @Test
  void readLendsTheRecordGetPicks() {
    try (LsmEngine engine = LsmEngine.open(dir, EngineOptions.defaults(), Hooks.none())) {
      long older = engine.clock().next();
      long newer = engine.clock().next();
      byte[] low = value(11, LARGE);
      byte[] high = low.clone();
      high[LARGE - 1] = (byte) 0xff; // the greater bytes, unsigned
      low[LARGE - 1] = 0x01;
      engine.write(bytes("older-later"), value(12, LARGE), newer);
      engine.write(bytes("tie"), high, newer);
      engine.write(bytes("tie-tombstone"), value(13, LARGE), newer);
      engine.compact();
      engine.write(bytes("older-later"), value(14, LARGE), older);
      engine.write(bytes("tie"), low, newer);
      engine.write(bytes("tie-tombstone"), null, newer);

      for (String key : new String[] {"older-later", "tie"}) {
        try (ReadRecord read = engine.read(bytes(key))) {
          assertLent(read, engine.get(bytes(key)));
        }
      }
      assertThat(((ReadRecord.Lent) engine.read(bytes("tie"))).value().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(high);
      assertThat(engine.read(bytes("tie-tombstone"))).isEqualTo(new ReadRecord.Copied(Entry.tombstone(bytes("tie-tombstone"), newer)));
    }
  }

  private static void assertLent(ReadRecord read, Entry expected) {
    assertThat(read).isInstanceOf(ReadRecord.Lent.class);
    ReadRecord.Lent lent = (ReadRecord.Lent) read;
    assertThat(lent.version()).isEqualTo(expected.version());
    assertThat(lent.key()).isEqualTo(expected.key());
    assertThat(lent.value().isReadOnly()).isTrue();
    assertThat(lent.value().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected.value());
  }

  private List<String> tableFiles() {
    return EngineTesting.fileNames(dir).stream().filter(n -> n.endsWith(".sst")).toList();
  }

  private static byte[] value(long seed, int length) {
    byte[] value = new byte[length];
    new Random(seed).nextBytes(value);
    return value;
  }
}
