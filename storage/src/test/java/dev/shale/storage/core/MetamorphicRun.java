package dev.shale.storage.core;

import static dev.shale.storage.core.EngineTesting.drain;

import dev.shale.storage.CrashVfs;
import dev.shale.storage.DurableWrites;
import dev.shale.storage.Engine;
import dev.shale.storage.EngineOptions;
import dev.shale.storage.EngineStats;
import dev.shale.storage.Entry;
import dev.shale.storage.EntryIterator;
import dev.shale.storage.Env;
import dev.shale.storage.Keys;
import dev.shale.storage.MemoryRead;
import dev.shale.storage.ReadRecord;
import dev.shale.storage.StorageException;
import dev.shale.storage.Vfs;
import dev.shale.storage.core.EngineTesting.Model;
import dev.shale.storage.core.MetamorphicOptionSets.OptionSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Runs one list of {@link MetamorphicOp}s against one store under one option set, checks every
 * answer against the model ({@link Model}, which every option set shares: see the crash rule in
 * {@link MetamorphicTest}), and returns the answers for comparison with the other option sets.
 *
 * <p>The store lives in lives: each life is one {@link CrashVfs} over a directory {@code life-N}
 * holding the store ({@code store}) and its checkpoints. A crash loses power, and the next life
 * opens what survived, in {@code life-N+1}. The clock is the test's: the wall clock moves only
 * by {@link MetamorphicOp.AdvanceClock}; monotonic time and threads stay real, so that stall
 * deadlines and write pacing run as in production (ManualClockEnv's monotonic clock would stand
 * still under a write slowdown's wait loop).
 */
final class MetamorphicRun implements AutoCloseable {
  private static final long START_WALL_MILLIS = 1_750_000_000_000L;
  private static final int MAX_HELD_LEASES = 8;

  /** A held lease and the bytes its value had when it was read. */
  private record HeldLease(ReadRecord.Lent lease, byte[] value, String read) {}

  private final OptionSet set;
  private final Path runDir;
  private final AtomicLong wallMillis = new AtomicLong(START_WALL_MILLIS);
  private final Model model = new Model();
  // The writes that made the store durable as this life began (the surviving ones, in order),
  // and those acknowledged since: the model is the two applied in order.
  private final List<Entry> baseWrites = new ArrayList<>();
  private final List<Entry> lifeWrites = new ArrayList<>();
  private final Deque<HeldLease> heldLeases = new ArrayDeque<>();
  private final MetamorphicRunStats stats = new MetamorphicRunStats();
  private int life;
  private int checkpoints;
  private CrashVfs vfs;
  private DurableWrites durable;
  private Engine engine;

  MetamorphicRun(OptionSet set, Path runDir) throws IOException {
    this.set = set;
    this.runDir = runDir;
    startLife();
  }

  MetamorphicRunStats stats() {
    return stats;
  }

  /** Runs {@code op} and returns its answer; throws an AssertionError, saying both, when it is not the model's. */
  String run(MetamorphicOp op) throws IOException {
    return switch (op) {
      case MetamorphicOp.Put p -> {
        long expiresAt = p.ttlMillis() == 0 ? Entry.NEVER : wallMillis.get() + p.ttlMillis();
        long version = engine.put(p.key(), p.value(), expiresAt);
        acknowledge(new Entry(p.key(), version, p.value(), expiresAt));
        yield "v" + version;
      }
      case MetamorphicOp.Delete d -> {
        long version = engine.delete(d.key());
        acknowledge(Entry.tombstone(d.key(), version));
        yield "v" + version;
      }
      case MetamorphicOp.Write w -> {
        Entry record = recordOf(w);
        engine.write(record.key(), record.value(), record.version(), record.expiresAtMillis());
        acknowledge(record);
        yield "v" + record.version();
      }
      case MetamorphicOp.WriteBatch b -> writeBatch(b);
      case MetamorphicOp.Get g -> {
        Entry expected = expectedRecord(g.key());
        String answer = expect(expected, engine.get(g.key()), MetamorphicAnswers::record);
        readFromMemory(g.key(), expected);
        yield answer;
      }
      case MetamorphicOp.Read r -> read(r);
      case MetamorphicOp.ReleaseLeases ignored -> releaseLeases();
      case MetamorphicOp.Scan s -> scan(s);
      case MetamorphicOp.Compact ignored -> {
        engine.compact();
        yield "compacted";
      }
      case MetamorphicOp.Checkpoint ignored -> checkpoint();
      case MetamorphicOp.Reopen ignored -> {
        takeStats();
        engine.close();
        // Closing makes every acknowledged write durable (Engine.close): a later power loss
        // must keep them all.
        baseWrites.addAll(lifeWrites);
        lifeWrites.clear();
        durable = new DurableWrites(vfs);
        engine = open(vfs);
        stats.reopens++;
        yield checkWholeStore("after reopen");
      }
      case MetamorphicOp.Crash ignored -> crash();
      case MetamorphicOp.AdvanceClock a -> {
        wallMillis.addAndGet(a.millis());
        yield "";
      }
    };
  }

  private Entry recordOf(MetamorphicOp.Write w) {
    Entry stored = model.get(w.key());
    long version = w.version().pick(stored == null ? null : stored.version(), engine.clock().current());
    long expiresAt = w.ttlMillis() == 0 ? Entry.NEVER : wallMillis.get() + w.ttlMillis();
    return new Entry(w.key(), version, w.value(), expiresAt);
  }

  // The versions are picked from the store as the batch begins. Declining is a matter of timing
  // (Engine.tryWriteAll), so the answer does not say whether it did.
  private String writeBatch(MetamorphicOp.WriteBatch b) {
    List<Entry> records = b.writes().stream().map(this::recordOf).toList();
    if (engine.tryWriteAll(records)) {
      stats.batchesTaken++;
    } else {
      for (Entry r : records) engine.write(r.key(), r.value(), r.version(), r.expiresAtMillis());
    }
    records.forEach(this::acknowledge);
    return records.stream().map(r -> "v" + r.version()).toList().toString();
  }

  private void acknowledge(Entry record) {
    model.apply(record);
    lifeWrites.add(record);
    durable.acknowledged();
  }

  private @Nullable Entry expectedRecord(byte[] key) {
    Entry stored = model.get(key);
    return stored == null ? null : stored.readAt(wallMillis.get());
  }

  // Engine.readFromMemory right after a get, where memory answers it (which depends on the set's
  // block cache, so it is no part of the answer the sets compare), must answer as the get did.
  private void readFromMemory(byte[] key, @Nullable Entry expected) {
    if (!(engine.readFromMemory(key) instanceof MemoryRead.Answered(ReadRecord record))) return;
    stats.memoryReads++;
    Entry found;
    try (record) {
      found = switch (record) {
        case null -> null;
        case ReadRecord.Copied c -> c.entry();
        case ReadRecord.Lent lent -> copyOf(lent);
      };
    }
    expect(expected, found, MetamorphicAnswers::record, "read from memory");
  }

  private static Entry copyOf(ReadRecord.Lent lent) {
    return new Entry(lent.key(), lent.version(), lent.value().toArray(ValueLayout.JAVA_BYTE), lent.expiresAtMillis());
  }

  // A value of at least Engine.LEND_MIN_VALUE_BYTES is lent, anything else copied.
  private String read(MetamorphicOp.Read r) {
    Entry expected = expectedRecord(r.key());
    boolean lendable = expected != null && !expected.isTombstone() && expected.value().length >= Engine.LEND_MIN_VALUE_BYTES;
    ReadRecord record = engine.read(r.key());
    Entry found;
    boolean held = false;
    try {
      found = switch (record) {
        case null -> null;
        case ReadRecord.Copied c -> c.entry();
        case ReadRecord.Lent lent -> {
          stats.lentReads++;
          Entry copy = copyOf(lent);
          if (r.hold() && Objects.equals(copy, expected)) {
            holdLease(lent, copy);
            held = true;
          }
          yield copy;
        }
      };
    } finally {
      if (!held && record != null) record.close();
    }
    String answer = MetamorphicAnswers.record(found) + (record instanceof ReadRecord.Lent ? " lent" : "");
    String wanted = MetamorphicAnswers.record(expected) + (lendable ? " lent" : "");
    if (!answer.equals(wanted)) throw new AssertionError("expected (the model) " + wanted + " but was " + answer);
    return answer;
  }

  private void holdLease(ReadRecord.Lent lease, Entry read) {
    if (heldLeases.size() == MAX_HELD_LEASES) releaseOldestLease();
    heldLeases.addLast(new HeldLease(lease, read.value(), MetamorphicAnswers.record(read)));
  }

  private void releaseOldestLease() {
    HeldLease held = heldLeases.removeFirst();
    byte[] now = held.lease().value().toArray(ValueLayout.JAVA_BYTE);
    held.lease().close();
    if (!Arrays.equals(now, held.value())) {
      throw new AssertionError("a held lease of " + held.read() + " changed its bytes before it was closed");
    }
  }

  private String releaseLeases() {
    int count = heldLeases.size();
    while (!heldLeases.isEmpty()) releaseOldestLease();
    long open = engine.stats().valueLeases();
    if (open != 0) throw new AssertionError("every lease closed, yet the engine counts " + open + " open");
    return "released " + count;
  }

  private String scan(MetamorphicOp.Scan s) {
    long now = wallMillis.get();
    List<Entry> expected = model.scan(s.start(), s.end(), true).stream()
        .map(e -> e.readAt(now))
        .filter(e -> s.includeTombstones() || !e.isTombstone())
        .limit(s.limit())
        .toList();
    List<Entry> found = new ArrayList<>();
    try (EntryIterator it = engine.scan(s.start(), s.end(), s.includeTombstones())) {
      while (found.size() < s.limit() && it.hasNext()) found.add(it.next());
    }
    return expect(expected, found, MetamorphicAnswers::records);
  }

  // The checkpoint is opened from a copy outside the crash filesystem, which must not see files
  // change behind it, and then deleted, with its copy, so that its links do not keep old tables.
  private String checkpoint() throws IOException {
    Path checkpoint = lifeDir().resolve("checkpoint-" + checkpoints++);
    engine.checkpoint(checkpoint);
    Path copy = runDir.resolve("checkpoint-copy");
    EngineTesting.copyDirectory(checkpoint, copy);
    for (Path file : EngineTesting.fileNames(checkpoint).stream().map(checkpoint::resolve).toList()) vfs.delete(file);
    vfs.delete(checkpoint);
    String answer;
    try (Engine opened = Engine.open(copy, options(set.directReads() ? Vfs.realDirect() : Vfs.real()))) {
      answer = expect(expectedStore(), drain(opened.scan(new byte[0], null, true)), MetamorphicAnswers::digest, "the checkpoint opened");
    }
    deleteTree(copy);
    stats.checkpoints++;
    return answer;
  }

  // The crash rule (MetamorphicTest): the survivors must be the model after a prefix that keeps
  // every durable write; then the lost writes are written again, with their versions, and every
  // option set goes on from the same state.
  private String crash() throws IOException {
    Path previousLife = lifeDir();
    vfs.powerLoss();
    takeStats();
    abandonEngine();
    int mustKeep = durable.mustKeep(set.options().syncMode());
    List<Entry> lastLife = List.copyOf(lifeWrites);
    lifeWrites.clear();
    life++;
    startLife();
    deleteTree(previousLife);
    NavigableMap<byte[], Entry> recovered = new TreeMap<>(Keys.ORDER);
    drain(engine.scan(new byte[0], null, true)).forEach(e -> recovered.put(e.key(), e));
    int kept = SurvivingPrefix.of(baseWrites, lastLife, mustKeep, recovered, wallMillis.get());
    if (kept < 0) {
      throw new AssertionError("the store after the power loss (" + MetamorphicAnswers.digest(List.copyOf(recovered.values()))
          + ") is the model after no prefix of the " + lastLife.size() + " writes since the last one that keeps the first "
          + mustKeep + " (those durable in " + set.options().syncMode() + ")");
    }
    stats.crashes++;
    stats.writesLostInCrashes += lastLife.size() - kept;
    baseWrites.addAll(lastLife.subList(0, kept));
    for (Entry lost : lastLife.subList(kept, lastLife.size())) {
      engine.write(lost.key(), lost.value(), lost.version(), lost.expiresAtMillis());
      acknowledge(lost);
    }
    return checkWholeStore("after the power loss and the lost writes written again");
  }

  private String checkWholeStore(String when) {
    return expect(expectedStore(), drain(engine.scan(new byte[0], null, true)), MetamorphicAnswers::digest, when);
  }

  private List<Entry> expectedStore() {
    long now = wallMillis.get();
    return model.scan(new byte[0], null, true).stream().map(e -> e.readAt(now)).toList();
  }

  private <T> String expect(T expected, T found, Function<T, String> answer) {
    return expect(expected, found, answer, null);
  }

  // Compares in full; on a mismatch the message gives both in full (a digest hides the record).
  private <T> String expect(T expected, T found, Function<T, String> answer, @Nullable String when) {
    if (!Objects.equals(expected, found)) {
      String full = expected instanceof List<?> ? describe(expected) + " but was " + describe(found)
          : answer.apply(expected) + " but was " + answer.apply(found);
      throw new AssertionError((when == null ? "" : when + ": ") + "expected (the model) " + full);
    }
    return answer.apply(found);
  }

  @SuppressWarnings("unchecked")
  private static String describe(Object records) {
    return records instanceof List<?> list ? MetamorphicAnswers.records((List<Entry>) list) : MetamorphicAnswers.record((Entry) records);
  }

  private void startLife() throws IOException {
    vfs = new CrashVfs(lifeDir(), runDir.resolve("life-" + (life + 1)), set.directReads() ? Vfs.realDirect() : Vfs.real());
    durable = new DurableWrites(vfs);
    engine = open(vfs);
  }

  private Path lifeDir() {
    return runDir.resolve("life-" + life);
  }

  private Engine open(Vfs files) {
    return Engine.open(lifeDir().resolve("store"), options(files));
  }

  private EngineOptions options(Vfs files) {
    return set.options().withEnv(Env.real().withWallClock(wallMillis::get).withVfs(files));
  }

  private void takeStats() {
    EngineStats s = engine.stats();
    stats.flushes += s.flushes();
    stats.compactions += s.compactions();
  }

  // An abandoned engine's close fails (its files are gone); it must still let its threads go.
  private void abandonEngine() {
    try {
      engine.close();
    } catch (StorageException expected) {
      // The power is off.
    }
  }

  /** The last checks: the held leases still hold their bytes, and the whole store is the model's. */
  String finish() {
    releaseLeases();
    takeStats();
    return checkWholeStore("at the end");
  }

  /** Closes the engine (and any lease still held: a failed run's). */
  @Override
  public void close() {
    heldLeases.forEach(held -> held.lease().close());
    engine.close();
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted((a, b) -> b.compareTo(a)).toList()) Files.deleteIfExists(p);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
