package dev.shale.storage.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Env;
import dev.shale.storage.Keys;
import dev.shale.storage.StorageException;
import dev.shale.storage.io.FileNames;
import dev.shale.testkit.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offline tools' reading of a real store, written by the real engine and closed: verify finds
 * real damage (a flipped byte, a cut log, a removed table) naming file and offset and goes on past
 * it, accepts what opening accepts (a torn append), and get and scan give what a node would serve,
 * checked against a model of the writes (seeded; the seed is printed).
 */
class StoreInspectorTest {
  private static final int KEYS = 300;
  private static final long START_MILLIS = 1_750_000_000_000L;

  @TempDir Path dir;

  private final AtomicLong wallMillis = new AtomicLong(START_MILLIS);
  // Each key's newest record as the engine stamped it: the model get and scan are held against.
  private final Map<byte[], Entry> model = new TreeMap<>(Keys.ORDER);

  @BeforeEach
  void fill() {
    Random random = new Random(TestSeed.forTest("StoreInspectorTest"));
    // Small memtables: several tables, and records left in the live log segment at close. No
    // level-0 compaction, so that each table is a file of its own to damage.
    EngineOptions options = EngineOptions.defaults().withMemtableSizeBytes(64 << 10).withL0Triggers(20, 24, 28)
        .withEnv(Env.real().withWallClock(wallMillis::get));
    try (Engine engine = Engine.open(dir, options)) {
      for (int i = 0; i < 3_000; i++) {
        byte[] key = key(random.nextInt(KEYS));
        int op = random.nextInt(10);
        if (op == 0) {
          model.put(key, Entry.tombstone(key, engine.delete(key)));
        } else {
          byte[] value = new byte[20 + random.nextInt(100)];
          random.nextBytes(value);
          long expiresAt = op == 1 ? START_MILLIS + 1 + random.nextInt(10_000) : Entry.NEVER;
          model.put(key, new Entry(key, engine.put(key, value, expiresAt), value, expiresAt));
        }
      }
      await(engine);
      for (int i = 0; i < 20; i++) { // left in the live segment
        byte[] key = key(i);
        byte[] value = ("logged " + i).getBytes(StandardCharsets.UTF_8);
        model.put(key, new Entry(key, engine.put(key, value), value));
      }
    }
  }

  @Test
  void aWholeStoreVerifiesCountingWhatItRead() throws IOException {
    VerifyReport report = verify();

    assertThat(report.findings()).as("findings").isEmpty();
    assertThat(report.whole()).isTrue();
    assertThat(report.manifests()).isEqualTo(1);
    assertThat(report.tables()).as("tables").isEqualTo(files(FileNames.Kind.TABLE).size()).isGreaterThanOrEqualTo(3);
    assertThat(report.segments()).isGreaterThanOrEqualTo(1);
    assertThat(report.logRecords()).isGreaterThanOrEqualTo(20);
    assertThat(report.tableRecords()).isPositive();
    assertThat(report.bytes()).isPositive();
  }

  @Test
  void getAndScanGiveWhatANodeWouldServeAtTheGivenTime() throws IOException {
    for (long now : new long[] {START_MILLIS, START_MILLIS + 5_000, START_MILLIS + 20_000}) {
      List<Entry> live = new ArrayList<>();
      try (StoreInspector inspector = StoreInspector.open(dir)) {
        for (int i = 0; i < KEYS; i++) {
          Entry expected = model.get(key(i));
          Entry found = inspector.get(key(i));
          if (expected == null) {
            assertThat(found).as("key %s, never written", i).isNull();
            continue;
          }
          boolean alive = !expected.readAt(now).isTombstone();
          if (alive) {
            assertThat(found).as("key %s at %s", i, now).isEqualTo(expected);
            live.add(expected);
          } else {
            assertThat(found == null || found.readAt(now).isTombstone()).as("key %s dead at %s: %s", i, now, found).isTrue();
          }
        }
        try (EntryIterator scan = inspector.scan(key(0), null, now)) {
          List<Entry> scanned = new ArrayList<>();
          scan.forEachRemaining(scanned::add);
          assertThat(scanned).as("the scan at %s", now).isEqualTo(live);
        }
        try (EntryIterator scan = inspector.scan(key(10), key(20), now)) {
          List<Entry> scanned = new ArrayList<>();
          scan.forEachRemaining(scanned::add);
          assertThat(scanned).as("a bounded scan").isEqualTo(live.stream()
              .filter(e -> Keys.compare(e.key(), key(10)) >= 0 && Keys.compare(e.key(), key(20)) < 0).toList());
        }
      }
    }
  }

  @Test
  void damageInSeveralFilesIsEachNamedWithItsOffset() throws IOException {
    List<Path> tables = files(FileNames.Kind.TABLE);
    Path blockDamaged = tables.get(0);
    Path footerDamaged = tables.get(1);
    Path removed = tables.get(2);
    flip(blockDamaged, 5); // inside data block 0, at offset 0
    flip(footerDamaged, Files.size(footerDamaged) - 30); // a footer field the crc covers
    Files.delete(removed);

    VerifyReport report = verify();

    assertThat(report.whole()).isFalse();
    assertThat(report.damage()).extracting(Finding::toString).anySatisfy(line -> assertThat(line)
        .startsWith(blockDamaged.toString()).contains("table corrupt at offset 0").contains("fails its crc"));
    assertThat(report.damage()).extracting(Finding::toString).anySatisfy(line -> assertThat(line)
        .startsWith(footerDamaged.toString()).contains("footer fails its crc"));
    assertThat(report.damage()).extracting(Finding::toString).anySatisfy(line -> assertThat(line)
        .startsWith(removed.toString()).contains("missing"));
    assertThat(report.segments()).as("the logs are read after the damaged tables").isGreaterThanOrEqualTo(1);
  }

  @Test
  void aTornAppendIsANoteNotDamage() throws IOException {
    Path live = files(FileNames.Kind.LOG).getLast();
    long size = Files.size(live);
    byte[] torn = new byte[18]; // a record header announcing 1,000 bytes, of which 10 arrived
    torn[4] = (byte) 0xE8;
    torn[5] = 0x03;
    Files.write(live, torn, StandardOpenOption.APPEND);

    VerifyReport report = verify();

    assertThat(report.whole()).as("%s", report.findings()).isTrue();
    assertThat(report.notes()).extracting(Finding::toString)
        .containsExactly(live + ", offset " + size + ": torn append of 18 bytes (record of 1000 bytes runs past the end"
            + " of the file): a write cut short by a crash, never acknowledged; opening cuts it off");
  }

  @Test
  void aZeroedLogTailIsDamageThoughOpeningWouldAcceptIt() throws IOException {
    Path live = files(FileNames.Kind.LOG).getLast();
    byte[] bytes = Files.readAllBytes(live);
    Arrays.fill(bytes, bytes.length - 100, bytes.length, (byte) 0);
    Files.write(live, bytes);

    VerifyReport report = verify();

    assertThat(report.whole()).isFalse();
    assertThat(report.damage()).singleElement().extracting(Finding::toString).asString()
        .startsWith(live.toString()).contains("log tail dropped at open").contains("acknowledged records in them may be lost");
  }

  @Test
  void aBadRecordFollowedByValidOnesIsNamedWithItsOffset() throws IOException {
    Path live = files(FileNames.Kind.LOG).getLast();
    flip(live, 16 + 10); // inside the first record's payload
    VerifyReport report = verify();

    assertThat(report.damage()).singleElement().extracting(Finding::toString).asString()
        .startsWith(live.toString()).contains("bad record (crc mismatch) at offset 16 followed by");
  }

  @Test
  void aStoreAnEngineHoldsIsRefusedAndAnInspectedOneIsNotOpened() throws IOException {
    try (Engine engine = Engine.open(dir, EngineOptions.defaults())) {
      assertThatThrownBy(() -> StoreInspector.open(dir)).isInstanceOf(StorageException.class)
          .hasMessageContaining("is in use").hasMessageContaining("stop the node first");
    }
    try (StoreInspector inspector = StoreInspector.open(dir)) {
      assertThat(inspector.locked()).isTrue();
      assertThatThrownBy(() -> Engine.open(dir, EngineOptions.defaults())).isInstanceOf(StorageException.class)
          .hasMessageContaining("is in use");
    }
  }

  private VerifyReport verify() throws IOException {
    try (StoreInspector inspector = StoreInspector.open(dir)) {
      return inspector.verify();
    }
  }

  private List<Path> files(FileNames.Kind kind) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> FileNames.parse(f.getFileName().toString()).map(p -> p.kind() == kind).orElse(false))
          .sorted().toList();
    }
  }

  private static void flip(Path file, long offset) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[Math.toIntExact(offset)] ^= 0x5A;
    Files.write(file, bytes);
  }

  private static byte[] key(int i) {
    return String.format("key-%05d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static void await(Engine engine) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (engine.stats().immutableMemtables() > 0) {
      if (System.nanoTime() > deadline) throw new AssertionError("the flushes did not finish within 30 s");
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for the flushes");
      }
    }
  }
}
